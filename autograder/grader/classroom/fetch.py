"""The ``fetch`` command: copy a GitHub Classroom assignment's notebooks for grading.

``python -m autograder fetch --org ORG --prefix PREFIX --out submissions [--api-url URL]``

GitHub Classroom gives each student a repository ``<PREFIX>-<username>`` in the classroom's
organisation. This command lists the organisation's repositories with GitHub's REST API
(``GET /orgs/{org}/repos``, page by page), keeps those named ``<PREFIX>-<username>``, clones
each one (``git clone --depth 1``) into a temporary folder, and copies its notebooks into
``OUT/<username>/``, keeping their paths inside the repository, so that
``python -m autograder grade OUT`` grades them as ``<username>``'s. ``OUT/fetched.csv`` records
which commit of which repository each student's notebooks came from.

With ``--deadline TIME`` each repository is cloned with its history and taken at the last
commit on its branch (first parents) whose commit time is at or before ``TIME`` (a student's
own deadline from ``--extensions FILE``, ``student,deadline``, replaces it); the commits after
it are counted as late and not taken. ``fetched.csv`` then also records ``commit_time``,
``deadline``, ``late_commits`` and ``last_commit_time``; ``grade`` copies it into its results
and ``summary.md`` lists the late ones. Commit times are what git records, which a learner can
set by hand: where that matters, compare with the push times GitHub shows.

The token is read from the environment only (``CLASSROOM_TOKEN``, else ``GITHUB_TOKEN``),
never from the command line. It is sent to the API in a header, and to ``git`` in an
``http.extraHeader`` set through git's environment (``GIT_CONFIG_*``), only for clone
addresses on the API's own site, so it appears in no command line, no URL, no
``.git/config`` and no output. Only the standard library is used, so the command also runs
where the course's requirements are not installed
(``python -m autograder.grader.classroom.fetch``).
"""

from __future__ import annotations

import argparse
import base64
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from autograder.grader.safe_csv import SafeCsvWriter

API_URL = "https://api.github.com"
TOKEN_VARS = ("CLASSROOM_TOKEN", "GITHUB_TOKEN")
PER_PAGE = 100
MAX_PAGES = 1_000  # 100,000 repositories: a server that never sends an empty page stops here
CLONE_TIMEOUT = 300  # seconds for one repository
# A GitHub username: letters, digits and single hyphens inside, at most 39 characters.
_USERNAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$")


# fetched.csv's columns after student, repository, commit, notebooks (with --deadline only)
FETCHED_DEADLINE = ("commit_time", "deadline", "late_commits", "last_commit_time")


class FetchError(Exception):
    """A problem that stops or skips a fetch, with a message fit for one line of output."""


@dataclass
class Fetched:
    """What a fetch did.

    Attributes:
        students: username -> (repository, commit, notebooks copied).
        skipped: repositories that start with the prefix but were not fetched, with why.
        failed: repositories that could not be fetched, with why.
        seen: how many repositories the organisation listed.
    """

    students: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    seen: int = 0
    taken: dict[str, Taken] = field(default_factory=dict)  # with a deadline: what was taken


@dataclass(frozen=True)
class Taken:
    """The commit taken from a repository at a deadline.

    Attributes:
        commit: the last commit at or before the deadline ("" when there was none).
        time: its commit time (ISO 8601, as git records it).
        deadline: the deadline applied (the student's extension when they have one).
        late: commits after the deadline (not taken).
        last_time: the time of the newest commit (late or not).
    """

    commit: str
    time: str
    deadline: str
    late: int
    last_time: str


def parse_deadline(text: str) -> datetime:
    """An ISO 8601 time with its UTC offset (``2026-03-01T23:59:00+01:00``, or ``...Z``).

    Raises:
        ValueError: not such a time, or no offset (a deadline must say its time zone).
    """
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 time such as "
                         "2026-03-01T23:59:00+01:00") from None
    if when.tzinfo is None:
        raise ValueError(f"{text!r} has no UTC offset: write it as 2026-03-01T23:59:00+01:00 "
                         "(or Z for UTC)")
    return when


def read_extensions(path: Path) -> dict[str, datetime]:
    """Per-student deadlines from the CSV ``student,deadline`` at ``path`` (GitHub username,
    ISO 8601 time with offset), by lower-case username.

    Raises:
        ValueError: a missing column, a bad time or a student twice, with the line.
    """
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = list(csv.DictReader(fh))
            columns = rows[0].keys() if rows else []
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"extensions {path}: cannot be read ({exc})") from None
    if rows and not {"student", "deadline"} <= set(columns):
        raise ValueError(f"extensions {path}: the header must be student,deadline")
    found: dict[str, datetime] = {}
    for line, row in enumerate(rows, start=2):
        student = (row.get("student") or "").strip()
        if not student:
            continue
        if student.lower() in found:
            raise ValueError(f"extensions {path}: line {line}: {student} is listed twice")
        try:
            found[student.lower()] = parse_deadline(row.get("deadline") or "")
        except ValueError as exc:
            raise ValueError(f"extensions {path}: line {line}: {exc}") from None
    return found


def token_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The token from ``CLASSROOM_TOKEN`` or ``GITHUB_TOKEN``.

    Raises:
        FetchError: when neither is set.
    """
    environ = os.environ if environ is None else environ
    for name in TOKEN_VARS:
        if environ.get(name, "").strip():
            return environ[name].strip()
    raise FetchError(f"set {' or '.join(TOKEN_VARS)} to a token that can read the "
                     "organisation's repositories (it is never taken from the command line)")


def _api_error(exc: urllib.error.HTTPError, org: str, api_url: str) -> FetchError:
    """A one-line message for the API's refusal ``exc``."""
    try:
        said = str(json.loads(exc.read().decode("utf-8", "replace")).get("message", ""))
    except (ValueError, AttributeError, OSError):
        said = ""
    said = f": {said[:200]}" if said else ""
    if exc.code == 401:
        return FetchError(f"the token was refused (HTTP 401{said}): check that "
                          f"{' or '.join(TOKEN_VARS)} holds a valid token that has not expired")
    if exc.code == 404:
        return FetchError(f"no organisation {org!r} at {api_url} (HTTP 404{said}): check "
                          "--org, and that the token may read that organisation")
    if exc.code == 403:
        return FetchError(f"access to {org!r}'s repositories was refused (HTTP 403{said}): "
                          "the token needs read access to the organisation's repositories "
                          "(and SSO authorisation where the organisation requires it), or "
                          "the API's rate limit was reached")
    return FetchError(f"{api_url} answered HTTP {exc.code}{said} while listing {org!r}'s "
                      "repositories")


def list_repos(api_url: str, org: str, token: str) -> list[dict]:
    """Every repository of ``org``: ``GET /orgs/{org}/repos``, 100 a page, until an empty page.

    Raises:
        FetchError: when the API refuses (bad token, unknown organisation) or cannot be reached.
    """
    repos: list[dict] = []
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
               "Authorization": f"Bearer {token}", "User-Agent": "learn-jax-autograder"}
    for page in range(1, MAX_PAGES + 1):
        url = (f"{api_url.rstrip('/')}/orgs/{urllib.parse.quote(org, safe='')}/repos"
               f"?per_page={PER_PAGE}&page={page}")
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                        timeout=60) as response:
                batch = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raise _api_error(exc, org, api_url) from None
        except urllib.error.URLError as exc:
            raise FetchError(f"cannot reach {api_url}: {exc.reason}") from None
        except (ValueError, OSError) as exc:
            raise FetchError(f"{api_url} sent something that is not a repository list "
                             f"({type(exc).__name__})") from None
        if not isinstance(batch, list) or not all(isinstance(r, dict) for r in batch):
            raise FetchError(f"{api_url} sent something that is not a repository list")
        if not batch:
            return repos
        repos += batch
    raise FetchError(f"{api_url} listed more than {MAX_PAGES} pages of repositories")


def student_of(repo_name: str, prefix: str) -> str | None:
    """The username in a repository named ``<prefix>-<username>`` (prefix in any case), or
    None when the name does not start with ``<prefix>-``."""
    head = prefix + "-"
    if not repo_name.lower().startswith(head.lower()) or len(repo_name) == len(head):
        return None
    return repo_name[len(head):]


def _site(url: str) -> str:
    """The host a token may be sent to: the API's host without a leading ``api.``."""
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("api.") else host


def git_env(token: str) -> dict[str, str]:
    """The environment for ``git clone``: the token as an ``http.extraHeader`` (never in
    the command line or the clone's config), and no prompt for a password."""
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG_")}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_ALLOW_PROTOCOL": "https",
                "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.extraHeader",
                "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}"})
    return env


def _hide(text: str, token: str) -> str:
    """``text`` with the token (plain or in a Basic header) replaced by ``***``."""
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return text.replace(token, "***").replace(basic, "***")


def clone(url: str, dest: Path, token: str, api_url: str, full: bool = False) -> str:
    """Clone the newest commit of ``url`` into ``dest`` (``full``: with its history); return
    the commit's id.

    The token goes only to an ``https`` address on the API's site (``github.com`` for
    ``api.github.com``); a ``file`` address (tests, mirrors) gets none.

    Raises:
        FetchError: for an address elsewhere, or when git fails (its last line, token hidden).
    """
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in ("https", "file") or (scheme == "https" and _site(url) != _site(api_url)):
        raise FetchError(f"clone address {url} is not on {_site(api_url)}; not sent the token")
    env = git_env(token) if scheme == "https" else {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG_")},
        "GIT_TERMINAL_PROMPT": "0", "GIT_ALLOW_PROTOCOL": "file"}
    depth = [] if full else ["--depth", "1"]
    for argv in (["git", "clone", "--quiet", *depth, "--no-tags", "--", url, str(dest)],
                 ["git", "-C", str(dest), "rev-parse", "HEAD"]):
        try:
            proc = subprocess.run(argv, env=env, capture_output=True, text=True,
                                  timeout=CLONE_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise FetchError(f"git took more than {CLONE_TIMEOUT} s on {url}") from None
        if proc.returncode != 0:
            if argv[1] == "-C":  # an empty repository has no commit
                return ""
            said = (_hide(proc.stderr, token).strip().splitlines() or ["no message"])[-1]
            raise FetchError(f"git clone {url} failed: {said[:300]}")
    return proc.stdout.strip()


def _git_out(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          timeout=CLONE_TIMEOUT, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    if proc.returncode != 0:
        said = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise FetchError(f"git {args[0]} failed: {said[:300]}")
    return proc.stdout


def take_at(repo: Path, deadline: datetime) -> Taken:
    """Check out, in the clone ``repo``, the last commit of its branch (first parents, as
    pushed) at or before ``deadline``; count the ones after it. With no commit by then the
    work tree is emptied (nothing is taken)."""
    lines = _git_out(repo, "log", "--first-parent", "--format=%H %ct %cI", "HEAD").split("\n")
    history = [line.split(" ") for line in lines if line.strip()]
    cutoff = deadline.timestamp()
    on_time = [h for h in history if int(h[1]) <= cutoff]
    shown = deadline.isoformat()
    last = history[0][2] if history else ""
    if not on_time:
        for item in repo.iterdir():
            if item.name == ".git":
                continue
            if item.is_dir() and not item.is_symlink():
                shutil.rmtree(item)
            else:
                item.unlink()
        return Taken("", "", shown, len(history), last)
    commit, _, when = on_time[0]
    _git_out(repo, "checkout", "--quiet", "--detach", commit)
    # Late: the commits pushed on top of the one taken.
    return Taken(commit, when, shown, history.index(on_time[0]), last)


def copy_notebooks(repo: Path, dest: Path) -> tuple[int, list[str]]:
    """Copy the notebooks of the clone ``repo`` into ``dest``, keeping their paths.

    Hidden folders (``.git``, ``.ipynb_checkpoints``) are skipped, and so are symbolic links
    (never followed).

    Returns:
        How many notebooks were copied, and the links skipped (paths inside the repository).
    """
    copied, links = 0, []
    for dirpath, dirnames, filenames in os.walk(repo, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith(".ipynb"):
                continue
            source = here / name
            rel = source.relative_to(repo)
            if source.is_symlink() or not source.is_file():
                links.append(str(rel))
                continue
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest / rel)
            copied += 1
    return copied, links


def fetch(org: str, prefix: str, out: Path, token: str, api_url: str = API_URL,
          log: Callable[[str], object] = print, deadline: datetime | None = None,
          extensions: Mapping[str, datetime] | None = None) -> Fetched:
    """Copy the notebooks of every ``<prefix>-<username>`` repository of ``org`` into
    ``out/<username>/`` (replacing what was there for that student), and write
    ``out/fetched.csv``.

    Args:
        org: the GitHub Classroom organisation.
        prefix: the assignment's repository prefix.
        out: the submissions folder.
        token: a token that can list and read the organisation's repositories.
        api_url: GitHub's REST API (another for GitHub Enterprise Server, or a test's).
        log: where progress lines go.
        deadline: take each repository at its last commit at or before this time (see
            :func:`take_at`), and record the commit, its time and the later commits.
        extensions: a later deadline per student (lower-case username).

    Raises:
        FetchError: when the repositories cannot be listed.
    """
    done = Fetched()
    repos = list_repos(api_url, org, token)
    done.seen = len(repos)
    wanted: dict[str, dict] = {}
    for repo in sorted(repos, key=lambda r: str(r.get("name", ""))):
        name = str(repo.get("name", ""))
        student = student_of(name, prefix)
        if student is None:
            continue
        if not _USERNAME.match(student):
            done.skipped.append(f"{name}: {student!r} is not a GitHub username")
        elif student.lower() in (s.lower() for s in wanted):
            done.skipped.append(f"{name}: a second repository for {student}")
        else:
            wanted[student] = repo
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="learn-jax-fetch-") as scratch:
        for student, repo in wanted.items():
            name, url = str(repo.get("name")), str(repo.get("clone_url") or "")
            try:
                if not url:
                    raise FetchError("the API gave no clone_url")
                commit = clone(url, Path(scratch) / student, token, api_url,
                               full=deadline is not None)
                if deadline is not None:
                    due = (extensions or {}).get(student.lower(), deadline)
                    taken = take_at(Path(scratch) / student, due) if commit else \
                        Taken("", "", due.isoformat(), 0, "")
                    done.taken[student] = taken
                    commit = taken.commit
            except FetchError as exc:
                done.failed.append(f"{name}: {exc}")
                log(f"{student}: FAILED ({exc})")
                continue
            shutil.rmtree(out / student, ignore_errors=True)
            (out / student).mkdir(parents=True)
            copied, links = copy_notebooks(Path(scratch) / student, out / student)
            shutil.rmtree(Path(scratch) / student, ignore_errors=True)
            done.students[student] = (name, commit, copied)
            note = f"; skipped symbolic links: {', '.join(links)}" if links else ""
            if student in done.taken and done.taken[student].late:
                note += f"; {done.taken[student].late} commit(s) after the deadline not taken"
            log(f"{student}: {copied} notebook(s) from {name} at {commit[:12] or 'no commit'}"
                f"{note}")
    with open(out / "fetched.csv", "w", newline="") as fh:
        writer = SafeCsvWriter(fh)  # repository names are the students' to choose
        writer.writerow(["student", "repository", "commit", "notebooks", *FETCHED_DEADLINE])
        for student, (name, commit, copied) in sorted(done.students.items()):
            t = done.taken.get(student)
            writer.writerow([student, name, commit, copied,
                             *((t.time, t.deadline, t.late, t.last_time) if t else ())])
    return done


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``fetch`` command's options."""
    parser.add_argument("--org", required=True, help="the GitHub Classroom organisation")
    parser.add_argument("--prefix", required=True,
                        help="the assignment's repository prefix: repositories are named "
                             "PREFIX-USERNAME")
    parser.add_argument("--out", type=Path, required=True,
                        help="submissions folder: notebooks go to OUT/USERNAME/")
    parser.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL") or API_URL,
                        help="GitHub's REST API (default: $GITHUB_API_URL, which GitHub "
                             f"Actions sets, else {API_URL})")
    parser.add_argument("--deadline", metavar="TIME",
                        help="take each repository at its last commit at or before TIME "
                             "(ISO 8601 with UTC offset, such as 2026-03-01T23:59:00+01:00); "
                             "later commits are counted as late")
    parser.add_argument("--extensions", type=Path, metavar="FILE",
                        help="CSV student,deadline: a later deadline for those students")


def run(args: argparse.Namespace) -> int:
    """Fetch as ``args`` says; exit status 0, 1 (something could not be fetched) or 2 (usage)."""
    try:
        token = token_from_env()
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not args.prefix.strip() or not args.org.strip():
        print("error: --org and --prefix must not be empty", file=sys.stderr)
        return 2
    if args.extensions and not args.deadline:
        print("error: --extensions needs --deadline", file=sys.stderr)
        return 2
    try:
        deadline = parse_deadline(args.deadline) if args.deadline else None
        extensions = read_extensions(args.extensions) if args.extensions else {}
    except ValueError as exc:
        print(f"error: --deadline: {exc}" if "extensions" not in str(exc) else f"error: {exc}",
              file=sys.stderr)
        return 2
    try:
        done = fetch(args.org, args.prefix, args.out, token, args.api_url,
                     deadline=deadline, extensions=extensions)
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for line in done.skipped:
        print(f"skipped {line}", file=sys.stderr)
    notebooks = sum(n for _, _, n in done.students.values())
    print(f"{len(done.students)} student(s), {notebooks} notebook(s) copied into {args.out} "
          f"({done.seen} repositories in {args.org}, {len(done.skipped)} skipped, "
          f"{len(done.failed)} failed)")
    late = sorted(s for s, t in done.taken.items() if t.late)
    if late:
        print(f"late (commits after the deadline, not taken): {', '.join(late)}")
    if done.failed:
        print("error: could not fetch " + "; ".join(done.failed), file=sys.stderr)
        return 1
    if not done.students:
        print(f"error: no repository named {args.prefix}-<username> in {args.org}",
              file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.grader.classroom.fetch``: the ``fetch`` command, standard library
    only."""
    parser = argparse.ArgumentParser(prog="python -m autograder fetch",
                                     description="Copy the notebooks of a GitHub Classroom "
                                                 "assignment's repositories.")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
