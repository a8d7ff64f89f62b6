"""The ``fetch`` command: copy a GitHub Classroom assignment's notebooks for grading.

``python -m autograder fetch --org ORG --prefix PREFIX --out submissions [--api-url URL]``

GitHub Classroom gives each student a repository ``<PREFIX>-<username>`` in the classroom's
organisation. This command lists the organisation's repositories with GitHub's REST API
(``GET /orgs/{org}/repos``, page by page), keeps those named ``<PREFIX>-<username>``, clones
each one (``git clone --depth 1``) into a temporary folder, and copies its notebooks into
``OUT/<username>/``, keeping their paths inside the repository, so that
``python -m autograder grade OUT`` grades them as ``<username>``'s. ``OUT/fetched.csv`` records
which commit of which repository each student's notebooks came from.

The token is read from the environment only (``CLASSROOM_TOKEN``, else ``GITHUB_TOKEN``),
never from the command line. It is sent to the API in a header, and to ``git`` in an
``http.extraHeader`` set through git's environment (``GIT_CONFIG_*``), only for clone
addresses on the API's own site, so it appears in no command line, no URL, no
``.git/config`` and no output. Only the standard library is used, so the command also runs
where the course's requirements are not installed (``python -m autograder.grader.fetch``).
"""

from __future__ import annotations

import argparse
import base64
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
from pathlib import Path

from autograder.grader.reports.common import SafeCsvWriter

API_URL = "https://api.github.com"
TOKEN_VARS = ("CLASSROOM_TOKEN", "GITHUB_TOKEN")
PER_PAGE = 100
MAX_PAGES = 1_000  # 100,000 repositories: a server that never sends an empty page stops here
CLONE_TIMEOUT = 300  # seconds for one repository
# A GitHub username: letters, digits and single hyphens inside, at most 39 characters.
_USERNAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$")


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


def clone(url: str, dest: Path, token: str, api_url: str) -> str:
    """Clone the newest commit of ``url`` into ``dest``; return the commit's id.

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
    for argv in (["git", "clone", "--quiet", "--depth", "1", "--no-tags", "--", url, str(dest)],
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
          log: Callable[[str], object] = print) -> Fetched:
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
                commit = clone(url, Path(scratch) / student, token, api_url)
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
            log(f"{student}: {copied} notebook(s) from {name} at {commit[:12] or 'no commit'}"
                f"{note}")
    with open(out / "fetched.csv", "w", newline="") as fh:
        writer = SafeCsvWriter(fh)  # repository names are the students' to choose
        writer.writerow(["student", "repository", "commit", "notebooks"])
        for student, (name, commit, copied) in sorted(done.students.items()):
            writer.writerow([student, name, commit, copied])
    return done


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``fetch`` command's options."""
    parser.add_argument("--org", required=True, help="the GitHub Classroom organisation")
    parser.add_argument("--prefix", required=True,
                        help="the assignment's repository prefix: repositories are named "
                             "PREFIX-USERNAME")
    parser.add_argument("--out", type=Path, required=True,
                        help="submissions folder: notebooks go to OUT/USERNAME/")
    parser.add_argument("--api-url", default=API_URL,
                        help="GitHub's REST API (default: %(default)s)")


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
    try:
        done = fetch(args.org, args.prefix, args.out, token, args.api_url)
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for line in done.skipped:
        print(f"skipped {line}", file=sys.stderr)
    notebooks = sum(n for _, _, n in done.students.values())
    print(f"{len(done.students)} student(s), {notebooks} notebook(s) copied into {args.out} "
          f"({done.seen} repositories in {args.org}, {len(done.skipped)} skipped, "
          f"{len(done.failed)} failed)")
    if done.failed:
        print("error: could not fetch " + "; ".join(done.failed), file=sys.stderr)
        return 1
    if not done.students:
        print(f"error: no repository named {args.prefix}-<username> in {args.org}",
              file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.grader.fetch``: the ``fetch`` command, standard library only."""
    parser = argparse.ArgumentParser(prog="python -m autograder fetch",
                                     description="Copy the notebooks of a GitHub Classroom "
                                                 "assignment's repositories.")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
