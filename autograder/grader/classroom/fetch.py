"""The ``fetch`` command: copy each learner's notebooks from their repository in a GitHub
organisation, for grading.

``python -m autograder fetch --org ORG --prefix PREFIX --roster ROSTER.csv --out submissions
[--deadline TIME] [--jobs N]``

The course's GitHub path (GitHub Classroom was retired on 2026-08-28; its organisations and
repositories remain): the instructor keeps an organisation, makes one repository per learner
and assignment from the assignment's template repository, named ``<PREFIX>-<login>`` (the
learner's GitHub login), and keeps a roster CSV with an identifier column and a login column
(``--id-column``, default the first of ``identifier``, ``email``, ``student_id``, ``id``;
``--login-column``, default the first of ``github_username``, ``login``, ``github``,
``username``). GitHub Classroom's old roster (``identifier, github_username, github_id,
name``) is such a file as it is.

This command lists the organisation's repositories with GitHub's REST API
(``GET /orgs/{org}/repos``, page by page) and takes exactly those named ``<PREFIX>-<login>``
for a login on the roster (case-insensitive, as GitHub's are): ``jax-hw1-redo-ada-l`` is
another assignment's repository, not a learner ``redo-ada-l``. Every repository it does not
take is listed with why, in the terminal and in ``OUT/not_taken.csv`` (``repository, login,
reason``), with the rostered learners who have no repository. Without ``--roster`` every
``<PREFIX>-<name>`` repository is taken, with a warning. A name is not enough: a learner who
may create or rename repositories in the organisation can give one any name, so a repository
is taken as ``<login>``'s only when GitHub lists ``<login>`` as its owner or one of its direct
collaborators (``GET /repos/{owner}/{repo}/collaborators?affiliation=direct``; the
instructor's invitation makes them one) and lists no other rostered learner;
``--trust-names`` skips that question. Each taken repository is cloned
(``git clone --depth 1 --no-checkout``) into a temporary folder and its notebooks written
from git's objects into ``OUT/<login>/``, keeping their paths inside the repository, so that
``python -m autograder grade OUT`` grades them as that learner's. What one repository may
bring is bounded (:class:`Limits`, each with an option: the git data a clone receives, its
objects' count and unpacked size, the files and folders of the commit taken, each notebook's
size and depth and their total): a repository past a limit is refused by name before
anything of it is written, and a notebook past its own is left out by name.
``OUT/fetched.csv`` records which commit of which repository each learner's notebooks came
from. ``--jobs N`` clones N
repositories at a time; API calls and clones are retried with backoff on GitHub's transient
refusals (HTTP 5xx, 429, a secondary rate limit's 403) and on git's transient network
failures; each repository done is a progress line ``[k/N]``.

With ``--deadline TIME`` each repository is cloned with its history and taken at the last
commit on its branch (first parents) that GitHub *received* at or before ``TIME`` (a learner's
own deadline from ``--extensions FILE``, ``student,deadline``, replaces it). When GitHub
received a commit is read from the repository's activity
(``GET /repos/{owner}/{repo}/activity?ref=<branch>``: each push's ``after`` commit and
``timestamp``): a commit was received with the first push whose ``after`` is it or a commit
built on it. A commit no recorded push covers (such as the template's first commit) falls
back to its commit time. Commit times stay as a second opinion: a commit whose commit time
is on time but which GitHub received after the deadline is counted as ``backdated`` (its
date says on time, its push says late) and reported in the terminal. The commits after the
one taken are counted late and not taken. ``fetched.csv`` then also records
``commit_time``, ``deadline``, ``late_commits``, ``last_commit_time``, ``pushed_at``,
``last_pushed_at``, ``backdated``, ``decided_by`` (``push`` or ``commit time``) and
``by_commit_time`` (how many commits were judged by commit time although the activity was
read: no push it lists covers them; named in the summary, refused with
``--require-push-times``); ``grade`` copies it into its results and ``summary.md`` lists
the late ones and those judged by commit time. ``--commit-times`` decides
by commit times alone, for a server without the activity API (a learner can set those by
hand: say so before using them to defend a penalty).

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
import contextlib
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
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
# Retries of a transient failure (API or git): waits of RETRY_BASE * 2**n seconds, or what
# the server's Retry-After says (at most RETRY_MAX_WAIT).
RETRIES = 4
RETRY_BASE = 1.0
RETRY_MAX_WAIT = 120.0
# git's words for a failure worth another try (the network, or the server for a moment).
_TRANSIENT_GIT = re.compile(
    r"could not resolve host|connection (?:reset|refused|timed out)|timed out|early eof|"
    r"remote end hung up|rpc failed|returned error: (?:5\d\d|429)|internal server error|"
    r"http/2 stream|ssl_read|gnutls_handshake|temporarily unavailable", re.IGNORECASE)
LOGIN_COLUMNS = ("github_username", "login", "github", "username")
ID_COLUMNS = ("identifier", "email", "student_id", "id")
NOT_TAKEN = "not_taken.csv"

MB = 2**20
# Runs Python's standard library in the child: sets the size limit of any file it writes,
# then becomes the command (git), so that no pack git receives grows past the limit.
_FILE_LIMITED = ("import os, resource, sys\n"
                 "size = int(sys.argv[1])\n"
                 "resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))\n"
                 "os.execvp(sys.argv[2], sys.argv[2:])\n")


@dataclass(frozen=True)
class Limits:
    """The most ``fetch`` takes from one repository. A repository past a limit of its own is
    refused, by name, before anything of it is written into the submissions folder; a notebook
    past its own is left out, by name, and the rest taken. Each has a ``fetch`` option.

    Attributes:
        download_bytes: git data received for one clone (the pack), ``--max-repository-mb``.
        objects: objects in the clone, ``--max-objects``.
        unpacked_bytes: those objects' sizes, unpacked, together, ``--max-unpacked-mb``.
        entries: files and folders in the commit taken, ``--max-files``.
        notebook_bytes: one notebook, ``--max-notebook-mb`` (grading refuses larger ones).
        notebooks_bytes: every notebook taken from the repository, ``--max-notebooks-mb``.
        depth: folders a notebook may lie in, ``--max-depth``.
    """

    download_bytes: int = 200 * MB
    objects: int = 100_000
    unpacked_bytes: int = 2_048 * MB
    entries: int = 10_000
    notebook_bytes: int = 20 * MB
    notebooks_bytes: int = 200 * MB
    depth: int = 16


# fetched.csv's columns after student, repository, commit, notebooks (with --deadline only)
FETCHED_DEADLINE = ("commit_time", "deadline", "late_commits", "last_commit_time",
                    "pushed_at", "last_pushed_at", "backdated", "decided_by", "by_commit_time")


class FetchError(Exception):
    """A problem that stops or skips a fetch, with a message fit for one line of output."""


@dataclass(frozen=True)
class NotTaken:
    """A repository not fetched (or a rostered learner with none), and why."""

    repository: str
    login: str
    reason: str


@dataclass
class Fetched:
    """What a fetch did.

    Attributes:
        students: login -> (repository, commit, notebooks copied).
        not_taken: repositories not fetched, and rostered learners without one, with why.
        failed: repositories that could not be fetched, with why.
        seen: how many repositories the organisation listed.
        taken: with a deadline, what was taken from each repository.
    """

    students: dict[str, tuple[str, str, int]] = field(default_factory=dict)
    not_taken: list[NotTaken] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    seen: int = 0
    taken: dict[str, Taken] = field(default_factory=dict)


@dataclass(frozen=True)
class Taken:
    """The commit taken from a repository at a deadline.

    Attributes:
        commit: the last commit GitHub received at or before the deadline ("" when none).
        time: its commit time (ISO 8601, as git records it).
        deadline: the deadline applied (the student's extension when they have one).
        late: commits after the one taken (not taken).
        last_time: the commit time of the newest commit (late or not).
        pushed: when GitHub received the commit taken ("" when no push covers it).
        last_pushed: when GitHub received the newest commit ("" when no push covers it).
        backdated: commits not taken whose commit time is on time (pushed after the deadline).
        decided_by: ``push`` (GitHub's activity) or ``commit time``.
        by_commit_time: commits judged by their commit time although GitHub's activity was
            read (no push it lists covers them): the commit taken, and any newer one.
    """

    commit: str
    time: str
    deadline: str
    late: int
    last_time: str
    pushed: str = ""
    last_pushed: str = ""
    backdated: int = 0
    decided_by: str = "push"
    by_commit_time: int = 0


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


def _read_rows(path: Path, what: str) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of the CSV at ``path`` (a byte-order mark allowed)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            rows = list(reader)
            return [c.strip() for c in (reader.fieldnames or [])], rows
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{what} {path}: cannot be read ({exc})") from None


def read_extensions(path: Path) -> dict[str, datetime]:
    """Per-student deadlines from the CSV ``student,deadline`` at ``path`` (GitHub username,
    ISO 8601 time with offset), by lower-case username.

    Raises:
        ValueError: a missing column, a bad time or a student twice, with the line.
    """
    columns, rows = _read_rows(path, "extensions")
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


def read_logins(path: Path, login_column: str | None = None,
                id_column: str | None = None) -> dict[str, tuple[str, str]]:
    """The roster at ``path``: lower-case login -> (login, identifier).

    ``login_column`` and ``id_column`` name the columns; by default the first present of
    :data:`LOGIN_COLUMNS` and :data:`ID_COLUMNS` (GitHub Classroom's old roster has
    ``github_username`` and ``identifier``). A row with no login (a learner not yet linked to
    GitHub) is left out.

    Raises:
        ValueError: no such column, a login that is not a GitHub login, or one login twice,
            with the line.
    """
    columns, rows = _read_rows(path, "roster")

    def pick(given: str | None, known: tuple[str, ...], what: str) -> str | None:
        if given:
            if given not in columns:
                raise ValueError(f"roster {path}: no column {given!r} for the {what} "
                                 f"(columns: {', '.join(columns)})")
            return given
        return next((c for c in known if c in columns), None)

    login_col = pick(login_column, LOGIN_COLUMNS, "login")
    if login_col is None:
        raise ValueError(f"roster {path}: no login column (one of {', '.join(LOGIN_COLUMNS)}; "
                         "or name it with --login-column)")
    id_col = pick(id_column, ID_COLUMNS, "identifier")
    found: dict[str, tuple[str, str]] = {}
    for line, row in enumerate(rows, start=2):
        login = (row.get(login_col) or "").strip()
        if not login:
            continue
        if not _USERNAME.match(login):
            raise ValueError(f"roster {path}: line {line}: {login!r} is not a GitHub login")
        if login.lower() in found:
            raise ValueError(f"roster {path}: line {line}: login {login} is listed twice")
        found[login.lower()] = (login, (row.get(id_col) or "").strip() if id_col else "")
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


def _said(exc: urllib.error.HTTPError) -> str:
    """The API's own message in an error response, or ""."""
    try:
        return str(json.loads(exc.read().decode("utf-8", "replace")).get("message", ""))
    except (ValueError, AttributeError, OSError):
        return ""


def _api_error(status: int, said: str, org: str, api_url: str) -> FetchError:
    """A one-line message for the API's refusal."""
    said = f": {said[:200]}" if said else ""
    if status == 401:
        return FetchError(f"the token was refused (HTTP 401{said}): check that "
                          f"{' or '.join(TOKEN_VARS)} holds a valid token that has not expired")
    if status == 404:
        return FetchError(f"no organisation {org!r} at {api_url} (HTTP 404{said}): check "
                          "--org, and that the token may read that organisation")
    if status == 403:
        return FetchError(f"access to {org!r}'s repositories was refused (HTTP 403{said}): "
                          "the token needs read access to the organisation's repositories "
                          "(and SSO authorisation where the organisation requires it), or "
                          "the API's rate limit was reached")
    return FetchError(f"{api_url} answered HTTP {status}{said} while listing {org!r}'s "
                      "repositories")


class ApiError(Exception):
    """The API refused a request for good (after any retries): its status and message."""

    def __init__(self, status: int, said: str) -> None:
        super().__init__(f"HTTP {status}" + (f": {said[:200]}" if said else ""))
        self.status, self.said = status, said


def _wait(attempt: int, retry_after: str | None, reset: str | None = None) -> float:
    """Seconds to wait before try ``attempt + 1``: the server's ``Retry-After``, else until
    its rate limit's ``X-RateLimit-Reset`` (epoch seconds), else backoff; at most
    :data:`RETRY_MAX_WAIT`."""
    asked = None
    try:
        if retry_after:
            asked = float(retry_after)
        elif reset:
            asked = max(0.0, float(reset) - time.time())
    except ValueError:
        asked = None
    return min(RETRY_MAX_WAIT, asked if asked is not None else RETRY_BASE * 2 ** attempt)


def _transient(status: int, said: str, headers: Mapping[str, str]) -> bool:
    """Whether an HTTP refusal is worth another try: 5xx, 429, or a 403 that is a rate limit
    (GitHub's secondary limit, or the primary one run out)."""
    if status >= 500 or status == 429:
        return True
    return status == 403 and ("rate limit" in said.lower() or "retry-after" in
                              {k.lower() for k in headers}
                              or headers.get("X-RateLimit-Remaining") == "0")


def api_get(url: str, token: str, retries: int = RETRIES) -> tuple[object, Mapping[str, str]]:
    """GET ``url`` from the API with ``token``; the JSON and the response's headers. Retried
    with backoff on a transient refusal (:func:`_transient`) or a dropped connection.

    Raises:
        ApiError: a refusal that is not transient, or still there after ``retries``.
        FetchError: the API cannot be reached, or sent something that is not JSON.
    """
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
               "Authorization": f"Bearer {token}", "User-Agent": "learn-jax-autograder"}
    parts = urllib.parse.urlsplit(url)
    host = f"{parts.scheme}://{parts.netloc}"
    for attempt in range(retries + 1):
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                        timeout=60) as response:
                return (json.loads(response.read().decode("utf-8")),
                        dict(response.headers.items()))
        except urllib.error.HTTPError as exc:
            said, got = _said(exc), dict(exc.headers.items()) if exc.headers else {}
            if attempt < retries and _transient(exc.code, said, got):
                reset = got.get("X-RateLimit-Reset") if got.get(
                    "X-RateLimit-Remaining") == "0" else None
                time.sleep(_wait(attempt, got.get("Retry-After"), reset))
                continue
            raise ApiError(exc.code, said) from None
        except urllib.error.URLError as exc:
            refused = isinstance(exc.reason, ConnectionRefusedError)
            if attempt < retries and not refused:
                time.sleep(_wait(attempt, None))
                continue
            raise FetchError(f"cannot reach {host}: {exc.reason}") from None
        except (ConnectionError, TimeoutError) as exc:
            if attempt < retries:
                time.sleep(_wait(attempt, None))
                continue
            raise FetchError(f"cannot reach {host}: {exc}") from None
        except (ValueError, OSError) as exc:
            raise FetchError(f"{host} sent something that is not JSON "
                             f"({type(exc).__name__})") from None
    raise AssertionError("unreachable")  # pragma: no cover


def list_repos(api_url: str, org: str, token: str) -> list[dict]:
    """Every repository of ``org``: ``GET /orgs/{org}/repos``, 100 a page, until an empty page.

    Raises:
        FetchError: when the API refuses (bad token, unknown organisation) or cannot be reached.
    """
    repos: list[dict] = []
    for page in range(1, MAX_PAGES + 1):
        url = (f"{api_url.rstrip('/')}/orgs/{urllib.parse.quote(org, safe='')}/repos"
               f"?per_page={PER_PAGE}&page={page}")
        try:
            batch, _ = api_get(url, token)
        except ApiError as exc:
            raise _api_error(exc.status, exc.said, org, api_url) from None
        if not isinstance(batch, list) or not all(isinstance(r, dict) for r in batch):
            raise FetchError(f"{api_url} sent something that is not a repository list")
        if not batch:
            return repos
        repos += batch
    raise FetchError(f"{api_url} listed more than {MAX_PAGES} pages of repositories")


def _next_link(headers: Mapping[str, str]) -> str | None:
    """The ``rel="next"`` address of a ``Link`` header, or None."""
    link = next((v for k, v in headers.items() if k.lower() == "link"), "")
    for part in link.split(","):
        match = re.match(r'\s*<([^>]+)>\s*;\s*rel="?next"?', part)
        if match:
            return match.group(1)
    return None


def api_pages(url: str, api_url: str, token: str, what: str, refused: str
              ) -> Iterator[list]:
    """Each page of the list GitHub's API gives at ``url`` (pages followed through ``Link``,
    on ``api_url``'s own host only, at most :data:`MAX_PAGES`).

    Raises:
        FetchError: the API refused (``refused`` says what that means), sent something that
            is not a list, sent a next page on another host, or ran past the last page.
    """
    host = urllib.parse.urlsplit(api_url).netloc
    next_url: str | None = url
    for _ in range(MAX_PAGES):
        if next_url is None:
            return
        if urllib.parse.urlsplit(next_url).netloc != host:
            raise FetchError(f"the next page of {what}, {next_url}, is not on {host}")
        try:
            batch, headers = api_get(next_url, token)
        except ApiError as exc:
            raise FetchError(f"{what} was refused ({exc}){refused}") from None
        if not isinstance(batch, list):
            raise FetchError(f"{what} is not a list")
        yield batch
        next_url = _next_link(headers) if batch else None
    raise FetchError(f"{what} ran past {MAX_PAGES} pages")


def push_times(api_url: str, full_name: str, branch: str, token: str
               ) -> list[tuple[str, datetime]]:
    """When GitHub received each commit pushed to ``branch`` of ``full_name``: (the push's
    ``after`` commit, its ``timestamp``) for every activity that moved the branch, from
    ``GET /repos/{owner}/{repo}/activity`` (pages followed through ``Link``, on the API's
    own host only).

    Raises:
        FetchError: the API refused or sent something that is not an activity list.
    """
    query = urllib.parse.urlencode({"ref": f"refs/heads/{branch}", "per_page": PER_PAGE,
                                    "direction": "asc"})
    url = f"{api_url.rstrip('/')}/repos/{urllib.parse.quote(full_name, safe='/')}/activity"
    found: list[tuple[str, datetime]] = []
    for batch in api_pages(f"{url}?{query}", api_url, token,
                           f"GitHub's activity of {full_name} (when each push arrived)",
                           "; without it, --commit-times decides by commit times alone"):
        for item in batch:
            if not isinstance(item, dict) or not item.get("after") or not item.get("timestamp"):
                continue
            try:
                found.append((str(item["after"]), parse_deadline(str(item["timestamp"]))))
            except ValueError:
                raise FetchError(f"GitHub's activity of {full_name} has a time "
                                 f"{item['timestamp']!r} that is not ISO 8601") from None
    return found


def collaborators(api_url: str, full_name: str, token: str) -> set[str]:
    """The lower-case logins GitHub lists as direct collaborators of the repository
    ``full_name`` (``GET /repos/{owner}/{repo}/collaborators?affiliation=direct``, pages
    followed through ``Link`` on the API's own host): the people given access to that
    repository itself, not through the organisation or a team.

    Raises:
        FetchError: the API refused (saying what the token needs, and ``--trust-names``) or
            sent something that is not a list of users.
    """
    query = urllib.parse.urlencode({"affiliation": "direct", "per_page": PER_PAGE})
    url = (f"{api_url.rstrip('/')}/repos/{urllib.parse.quote(full_name, safe='/')}"
           f"/collaborators?{query}")
    found: set[str] = set()
    for batch in api_pages(url, api_url, token,
                           f"GitHub's list of {full_name}'s collaborators",
                           ": the token's owner needs write access to it and the token "
                           "Metadata: read; --trust-names takes repositories by their names "
                           "alone"):
        found |= {str(user["login"]).lower() for user in batch
                  if isinstance(user, dict) and isinstance(user.get("login"), str)}
    return found


def check_owner(repo: dict, login: str, api_url: str, token: str,
                roster: Mapping[str, tuple[str, str]] | None = None) -> None:
    """Make sure the repository ``repo`` (as the API listed it) is ``login``'s by what GitHub
    says of it, not by its name: ``login`` owns it, or is one of its direct collaborators
    (:func:`collaborators`) and no other learner of ``roster`` is. A learner who may rename
    repositories, or create them in the organisation, can give one any name.

    Raises:
        FetchError: it is not, saying who GitHub lists and what to do.
    """
    owner = repo.get("owner")
    if isinstance(owner, dict) and str(owner.get("login", "")).lower() == login.lower():
        return
    full_name = str(repo.get("full_name") or repo.get("name"))
    people = collaborators(api_url, full_name, token)
    if login.lower() not in people:
        listed = ", ".join(sorted(people)) or "nobody"
        raise FetchError(f"GitHub does not list {login} as a collaborator of {full_name} "
                         f"(it lists {listed}), so it is not taken as {login}'s, whatever "
                         f"its name: if it is theirs, add them (gh api -X PUT "
                         f"repos/{full_name}/collaborators/{login} -f permission=push) and "
                         "fetch again")
    others = sorted(roster[p][0] for p in people if roster and p in roster
                    and p != login.lower())
    if others:
        raise FetchError(f"{full_name} also lists {', '.join(others)} (on the roster) as a "
                         f"collaborator: not taken as {login}'s alone; check who may push "
                         "to it")


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
    if not token:
        return text
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return text.replace(token, "***").replace(basic, "***")


def run_git(argv: list[str], env: Mapping[str, str], token: str, what: str,
            retries: int = RETRIES, timeout: int = CLONE_TIMEOUT, stdin: bytes | None = None,
            final: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run git's ``argv``; a failure git's message calls transient (the network, a server's
    5xx or 429) is tried again, with backoff, up to ``retries`` times.

    ``final`` maps words of git's message (anywhere in it) to the message of a failure that
    is never tried again (a limit reached).

    Raises:
        FetchError: git failed for good, or timed out: ``what`` and git's last line (token
            hidden), or ``final``'s message.
    """
    for attempt in range(retries + 1):
        try:
            proc = subprocess.run(argv, env=dict(env), capture_output=True, input=stdin,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            if attempt < retries:
                continue
            raise FetchError(f"{what}: git took more than {timeout} s") from None
        if proc.returncode == 0:
            return proc
        err = proc.stderr.decode("utf-8", "replace")
        for words, message in (final or {}).items():
            if words in err:
                raise FetchError(f"{what}: {message}")
        if attempt < retries and _TRANSIENT_GIT.search(err):
            time.sleep(_wait(attempt, None))
            continue
        said = (_hide(err, token).strip().splitlines() or ["no message"])[-1]
        raise FetchError(f"{what} failed: {said[:300]}")
    raise AssertionError("unreachable")  # pragma: no cover


def clone(url: str, dest: Path, token: str, api_url: str, full: bool = False,
          limits: Limits | None = None) -> str:
    """Clone the newest commit of ``url`` into ``dest`` (``full``: with its history), without
    checking anything out; return the commit's id ("" for an empty repository). Transient
    failures are tried again.

    The token goes only to an ``https`` address on the API's site (``github.com`` for
    ``api.github.com``); a ``file`` address (tests, mirrors) gets none. No file git writes
    may grow past ``limits.download_bytes`` (where the system has file size limits), and the
    clone's objects are counted and measured (:func:`check_objects`) before anything of them
    is read.

    Raises:
        FetchError: for an address elsewhere, when git fails (its last line, token hidden), or
            when the repository is past ``limits``.
    """
    limits = limits or Limits()
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in ("https", "file") or (scheme == "https" and _site(url) != _site(api_url)):
        raise FetchError(f"clone address {url} is not on {_site(api_url)}; not sent the token")
    env = git_env(token) if scheme == "https" else {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG_")},
        "GIT_TERMINAL_PROMPT": "0", "GIT_ALLOW_PROTOCOL": "file"}
    env["LC_ALL"] = "C"  # git's messages in English: a limit reached is read from them
    depth = [] if full else ["--depth", "1"]
    limited = ([sys.executable, "-c", _FILE_LIMITED, str(limits.download_bytes)]
               if os.name == "posix" else [])
    # every object into one pack (never loose files), so that the file size limit bounds all
    argv = [*limited, "git", "-c", "fetch.unpackLimit=1", "-c", "transfer.unpackLimit=1",
            "clone", "--quiet", "--no-checkout", *depth, "--no-tags", "--", url, str(dest)]
    too_big = {"File too large": f"more than {limits.download_bytes // MB} MB of git data "
                                 "(--max-repository-mb); not taken"}
    for attempt in range(RETRIES + 1):  # a half-made clone is removed before another try
        shutil.rmtree(dest, ignore_errors=True)
        try:
            run_git(argv, env, token, f"git clone {url}", retries=0, final=too_big)
            break
        except FetchError as exc:
            if attempt >= RETRIES or not _TRANSIENT_GIT.search(str(exc)):
                raise
            time.sleep(_wait(attempt, None))
    head = subprocess.run(["git", "-C", str(dest), "rev-parse", "HEAD"], env=env,
                          capture_output=True, text=True, timeout=CLONE_TIMEOUT)
    commit = head.stdout.strip() if head.returncode == 0 else ""  # empty: no commit
    if commit:
        check_objects(dest, limits)
    return commit


def _records(repo: Path, args: list[str], separator: bytes) -> Iterator[bytes]:
    """The records git's ``args`` writes in the clone ``repo``, one at a time, as git writes
    them; git is stopped as soon as the caller stops reading (a listing that would run to
    billions of lines costs only what was read).

    Raises:
        FetchError: git failed (its last line) or ran past :data:`CLONE_TIMEOUT`.
    """
    proc = subprocess.Popen(["git", "-C", str(repo), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    timer = threading.Timer(CLONE_TIMEOUT, proc.kill)
    timer.start()
    finished = False
    try:
        rest = b""
        assert proc.stdout is not None
        for chunk in iter(lambda: proc.stdout.read(65536), b""):
            *whole, rest = (rest + chunk).split(separator)
            yield from whole
        if rest:
            yield rest
        finished = True
    finally:
        timer.cancel()
        if not finished:
            proc.kill()
        proc.stdout.close()
        code = proc.wait()
    if code != 0:
        raise FetchError(f"git {args[0]} failed (exit status {code}, or more than "
                         f"{CLONE_TIMEOUT} s)")


def check_objects(repo: Path, limits: Limits) -> None:
    """Refuse the clone ``repo`` when it holds more than ``limits.objects`` objects or their
    sizes, unpacked, add up to more than ``limits.unpacked_bytes`` (read from the objects'
    headers, never by unpacking them).

    Raises:
        FetchError: past a limit, saying which and the option that changes it.
    """
    count, total = 0, 0
    with contextlib.closing(_records(repo, ["cat-file", "--batch-all-objects", "--unordered",
                                            "--batch-check=%(objectsize)"], b"\n")) as lines:
        for line in lines:
            count += 1
            total += int(line or b"0")
            if count > limits.objects:
                raise FetchError(f"more than {limits.objects} git objects (--max-objects); "
                                 "not taken")
            if total > limits.unpacked_bytes:
                raise FetchError(f"more than {limits.unpacked_bytes // MB} MB of git "
                                 "objects unpacked (--max-unpacked-mb); not taken")


def _git_out(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          timeout=CLONE_TIMEOUT, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    if proc.returncode != 0:
        said = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise FetchError(f"git {args[0]} failed: {said[:300]}")
    return proc.stdout


def branch_of(repo: Path) -> str:
    """The branch a clone checked out (the repository's default branch), read from its
    ``.git/HEAD`` (``ref: refs/heads/<branch>``) without starting git.

    Raises:
        FetchError: the clone's HEAD names no branch.
    """
    try:
        head = (repo / ".git" / "HEAD").read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise FetchError(f"the clone has no HEAD ({exc.strerror})") from None
    if not head.startswith("ref: refs/heads/"):
        raise FetchError("the clone's HEAD is on no branch")
    return head[len("ref: refs/heads/"):]


def take_at(repo: Path, deadline: datetime,
            pushes: list[tuple[str, datetime]] | None = None) -> Taken:
    """The last commit of the clone ``repo``'s branch (first parents, as pushed) that GitHub
    received at or before ``deadline``, and the ones after it counted (nothing is checked
    out: :func:`take_notebooks` reads the commit's notebooks).

    ``pushes`` (from :func:`push_times`) says when each commit was received: with the first
    push whose ``after`` is that commit or one on top of it. A commit no push covers, and
    every commit when ``pushes`` is None, is judged by its commit time; with ``pushes``, the
    commits so judged are counted (``by_commit_time``). With no commit by then, the commit
    taken is "" (nothing is taken).
    """
    lines = _git_out(repo, "log", "--first-parent", "--format=%H %ct %cI", "HEAD").split("\n")
    history = [line.split(" ") for line in lines if line.strip()]  # newest first
    place = {h[0]: i for i, h in enumerate(history)}
    first_push: dict[int, datetime] = {}
    for after, when in pushes or ():
        if after in place and (place[after] not in first_push
                               or when < first_push[place[after]]):
            first_push[place[after]] = when
    received: list[datetime | None] = []
    earliest: datetime | None = None
    for i in range(len(history)):  # commit i came with the earliest push of it or a newer one
        if i in first_push and (earliest is None or first_push[i] < earliest):
            earliest = first_push[i]
        received.append(earliest)
    cutoff = deadline.timestamp()

    def arrived(i: int) -> float:
        return received[i].timestamp() if received[i] is not None else int(history[i][1])

    shown = deadline.isoformat()
    last = history[0][2] if history else ""
    last_pushed = received[0].isoformat() if history and received[0] else ""
    taken = next((i for i in range(len(history)) if arrived(i) <= cutoff), None)
    late = len(history) if taken is None else taken
    backdated = sum(1 for i in range(late) if int(history[i][1]) <= cutoff)
    judged = range(len(history) if taken is None else taken + 1)
    by_time = 0 if pushes is None else sum(1 for i in judged if received[i] is None)
    if taken is None:
        return Taken("", "", shown, late, last, "", last_pushed, backdated,
                     "push" if pushes is not None else "commit time", by_time)
    commit, _, when = history[taken]
    pushed = received[taken].isoformat() if received[taken] else ""
    return Taken(commit, when, shown, late, last, pushed, last_pushed, backdated,
                 "push" if pushed else "commit time", by_time)


def _notebook_paths(repo: Path, commit: str, limits: Limits
                    ) -> tuple[list[tuple[str, str]], list[str]]:
    """The notebooks of ``commit`` in the clone ``repo``: (path, blob id) of each to take, and
    each one left out with why. Hidden folders (``.git``, ``.ipynb_checkpoints``) are
    skipped; symbolic links, submodules and notebooks more than ``limits.depth`` folders deep
    are left out by name.

    Raises:
        FetchError: the commit holds more than ``limits.entries`` files and folders (the
            listing stops there: a tree that names one folder many times over lists no
            further).
    """
    found: list[tuple[str, str]] = []
    left_out: list[str] = []
    entries = 0
    with contextlib.closing(_records(repo, ["ls-tree", "-r", "-t", "-z", "--full-tree",
                                            commit], b"\0")) as listing:
        for record in listing:
            entries += 1
            if entries > limits.entries:
                raise FetchError(f"more than {limits.entries} files and folders in commit "
                                 f"{commit[:12]} (--max-files); not taken")
            head, _, raw = record.partition(b"\t")
            mode, kind, blob = head.decode("ascii", "replace").split(" ")[:3]
            path = raw.decode("utf-8", "replace")
            parts = path.split("/")
            if (kind == "tree" or not path.endswith(".ipynb")
                    or any(not part or part.startswith(".") for part in parts[:-1])
                    or not parts[-1]):
                continue
            if mode == "120000" or kind != "blob":
                left_out.append(f"{path} (a symbolic link)" if mode == "120000" else
                                f"{path} (a submodule)")
            elif len(parts) - 1 > limits.depth:
                left_out.append(f"{path} (more than {limits.depth} folders deep, "
                                "--max-depth)")
            else:
                found.append((path, blob))
    return found, left_out


def take_notebooks(repo: Path, commit: str, dest: Path, limits: Limits | None = None
                   ) -> tuple[int, list[str]]:
    """Write the notebooks of ``commit`` in the clone ``repo`` into ``dest`` (replacing what
    was there), keeping their paths, read from git's objects (nothing is checked out).

    Every bound of ``limits`` is checked before the first byte is written: the files and
    folders listed (:func:`_notebook_paths`), then each notebook's size as git's object
    header gives it. A notebook over ``limits.notebook_bytes`` is left out by name; notebooks
    over ``limits.notebooks_bytes`` together refuse the repository. Each is written to a new
    file (never over one, never through a link).

    Returns:
        How many notebooks were written, and those left out, each with why.

    Raises:
        FetchError: the commit is past a limit of the repository's.
    """
    limits = limits or Limits()
    paths, left_out = _notebook_paths(repo, commit, limits) if commit else ([], [])
    sizes: dict[str, int] = {}
    if paths:
        ids = "".join(f"{blob}\n" for _, blob in paths).encode()
        checked = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch-check"],
                                 input=ids, capture_output=True, timeout=CLONE_TIMEOUT,
                                 env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
        for line in checked.stdout.decode("ascii", "replace").splitlines():
            blob, kind, size = (line.split(" ") + ["", ""])[:3]
            if kind == "blob" and size.isdigit():
                sizes[blob] = int(size)
    taking: list[tuple[str, str]] = []
    for path, blob in paths:
        size = sizes.get(blob)
        if size is None:
            left_out.append(f"{path} (not in the clone)")
        elif size > limits.notebook_bytes:
            left_out.append(f"{path} ({size / MB:.1f} MB, over {limits.notebook_bytes // MB} "
                            "MB, --max-notebook-mb)")
        else:
            taking.append((path, blob))
    total = sum(sizes[blob] for _, blob in taking)
    if total > limits.notebooks_bytes:
        raise FetchError(f"{len(taking)} notebooks of {total / MB:.0f} MB in commit "
                         f"{commit[:12]}, over {limits.notebooks_bytes // MB} MB together "
                         "(--max-notebooks-mb); not taken")
    shutil.rmtree(dest, ignore_errors=True)  # what an earlier fetch copied there
    dest.mkdir(parents=True)
    written = 0
    reader = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    timer = threading.Timer(CLONE_TIMEOUT, reader.kill)
    timer.start()
    try:
        assert reader.stdin is not None and reader.stdout is not None
        for path, blob in taking:  # one object asked, one read: no pipe fills up
            reader.stdin.write(f"{blob}\n".encode())
            reader.stdin.flush()
            header = reader.stdout.readline().split()
            if header[1:2] != [b"blob"] or int(header[2]) != sizes[blob]:
                raise FetchError(f"git cat-file gave something else for {path}")
            data = reader.stdout.read(sizes[blob] + 1)[:-1]  # the object, then a newline
            try:
                (dest / path).parent.mkdir(parents=True, exist_ok=True)
                with open(dest / path, "xb") as fh:  # exclusive: never over a file or a link
                    fh.write(data)
            except OSError as exc:
                left_out.append(f"{path} (cannot be written: {exc.strerror})")
                continue
            written += 1
    except (OSError, ValueError, IndexError):
        raise FetchError("git cat-file stopped while the notebooks were read") from None
    finally:
        timer.cancel()
        reader.kill()
        for pipe in (reader.stdin, reader.stdout):
            with contextlib.suppress(OSError):
                pipe.close() if pipe else None
        reader.wait()
    return written, left_out


def choose(repos: list[dict], prefix: str, roster: Mapping[str, tuple[str, str]] | None
           ) -> tuple[dict[str, dict], list[NotTaken]]:
    """Which repositories to fetch: login -> repository, and every other repository with why
    (then each rostered login with no repository).

    With ``roster`` (:func:`read_logins`), only ``<prefix>-<login>`` for a rostered login is
    taken, the login spelled as the roster spells it; without one, any ``<prefix>-<name>``
    whose name is a GitHub login.
    """
    wanted: dict[str, dict] = {}
    have: set[str] = set()  # lower-case logins taken
    others: list[NotTaken] = []
    for repo in sorted(repos, key=lambda r: str(r.get("name", ""))):
        name = str(repo.get("name", ""))
        rest = student_of(name, prefix)
        if rest is None:
            others.append(NotTaken(name, "", f"its name does not start with {prefix}-"))
            continue
        if roster is not None and rest.lower() not in roster:
            others.append(NotTaken(name, rest, f"{rest!r} is no login on the roster (another "
                                               "assignment's repository, or a learner "
                                               "missing from the roster?)"))
            continue
        login = roster[rest.lower()][0] if roster is not None else rest
        if not _USERNAME.match(login):
            others.append(NotTaken(name, rest, f"{rest!r} is not a GitHub username"))
        elif login.lower() in have:
            others.append(NotTaken(name, login, f"a second repository for {login}"))
        else:
            wanted[login] = repo
            have.add(login.lower())
    if roster is not None:
        others += [NotTaken("", login, f"on the roster ({ident or 'no identifier'}), but no "
                                       f"repository {prefix}-{login}")
                   for key, (login, ident) in sorted(roster.items()) if key not in have]
    return wanted, others


@dataclass(frozen=True)
class Rules:
    """How ``fetch`` decides what to take, beyond the deadline.

    Attributes:
        limits: the most taken from one repository (:class:`Limits`).
        trust_names: take a repository as ``<prefix>-<login>``'s by its name alone, without
            asking GitHub whose it is (:func:`check_owner`).
        require_push_times: with a deadline, refuse a repository where any commit's lateness
            would rest on its commit time (no push GitHub lists covers it).
    """

    limits: Limits = field(default_factory=Limits)
    trust_names: bool = False
    require_push_times: bool = False


def _fetch_one(login: str, repo: dict, out: Path, scratch: Path, token: str, api_url: str,
               deadline: datetime | None, commit_times: bool, rules: Rules,
               roster: Mapping[str, tuple[str, str]] | None
               ) -> tuple[str, str, int, list[str], Taken | None]:
    """Check whose ``repo`` is, clone it, take it at the deadline, write its notebooks into
    ``out/login``; (repository, commit, notebooks, notebooks left out with why, taken)."""
    name, url = str(repo.get("name")), str(repo.get("clone_url") or "")
    if not url:
        raise FetchError("the API gave no clone_url")
    if not rules.trust_names:
        check_owner(repo, login, api_url, token, roster)
    here = scratch / login
    try:
        commit = clone(url, here, token, api_url, full=deadline is not None,
                       limits=rules.limits)
        taken = None
        if deadline is not None:
            if not commit:
                taken = Taken("", "", deadline.isoformat(), 0, "")
            else:
                pushes = None if commit_times else push_times(
                    api_url, str(repo.get("full_name") or name), branch_of(here), token)
                taken = take_at(here, deadline, pushes)
                if taken.by_commit_time and rules.require_push_times:
                    raise FetchError(f"{taken.by_commit_time} commit(s) no push in GitHub's "
                                     "activity covers would be judged by commit time (which "
                                     "a learner can set); not taken (--require-push-times)")
            commit = taken.commit
        copied, left_out = take_notebooks(here, commit, out / login, rules.limits)
    finally:
        shutil.rmtree(here, ignore_errors=True)
    return name, commit, copied, left_out, taken


def fetch(org: str, prefix: str, out: Path, token: str, api_url: str = API_URL,
          log: Callable[[str], object] = print, deadline: datetime | None = None,
          extensions: Mapping[str, datetime] | None = None,
          roster: Mapping[str, tuple[str, str]] | None = None, jobs: int = 4,
          commit_times: bool = False, rules: Rules | None = None) -> Fetched:
    """Copy the notebooks of every learner's ``<prefix>-<login>`` repository of ``org`` into
    ``out/<login>/`` (replacing what was there for that learner), and write
    ``out/fetched.csv`` and ``out/not_taken.csv``.

    Args:
        org: the organisation.
        prefix: the assignment's repository prefix.
        out: the submissions folder.
        token: a token that can list and read the organisation's repositories.
        api_url: GitHub's REST API (another for GitHub Enterprise Server, or a test's).
        log: where progress lines go.
        deadline: take each repository at its last commit GitHub received by this time (see
            :func:`take_at`), and record the commit, its times and the later commits.
        extensions: a later deadline per student (lower-case username).
        roster: lower-case login -> (login, identifier) (:func:`read_logins`); only rostered
            logins are taken.
        jobs: repositories cloned at a time.
        commit_times: with ``deadline``, judge by commit times alone (no activity API).
        rules: the limits, and whether to ask GitHub whose each repository is and to refuse
            a decision by commit time (:class:`Rules`; default: its defaults).

    Raises:
        FetchError: when the repositories cannot be listed.
    """
    rules = rules or Rules()
    done = Fetched()
    repos = list_repos(api_url, org, token)
    done.seen = len(repos)
    wanted, done.not_taken = choose(repos, prefix, roster)
    out.mkdir(parents=True, exist_ok=True)
    lock, count = threading.Lock(), [0]
    with tempfile.TemporaryDirectory(prefix="learn-jax-fetch-") as scratch, \
            ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(_fetch_one, login, repo, out, Path(scratch), token, api_url,
                               None if deadline is None else
                               (extensions or {}).get(login.lower(), deadline),
                               commit_times, rules, roster): login
                   for login, repo in wanted.items()}
        for future in as_completed(futures):
            login = futures[future]
            name = str(wanted[login].get("name"))
            with lock:
                count[0] += 1
                step = f"[{count[0]}/{len(wanted)}] {login}"
            try:
                name, commit, copied, left_out, taken = future.result()
            except FetchError as exc:
                done.failed.append(f"{name}: {exc}")
                log(f"{step}: FAILED ({exc})")
                continue
            done.students[login] = (name, commit, copied)
            note = f"; left out: {', '.join(left_out)}" if left_out else ""
            if taken is not None:
                done.taken[login] = taken
                if taken.late:
                    note += f"; {taken.late} commit(s) after the deadline not taken"
                if taken.backdated:
                    note += (f"; {taken.backdated} of them BACKDATED (dated by the deadline, "
                             "received by GitHub after it)")
                if taken.by_commit_time:
                    note += (f"; {taken.by_commit_time} commit(s) judged BY COMMIT TIME (no "
                             "push GitHub lists covers them)")
            log(f"{step}: {copied} notebook(s) from {name} at {commit[:12] or 'no commit'}"
                f"{note}")
    done.failed.sort()
    _write_records(done, out)
    return done


def _write_records(done: Fetched, out: Path) -> None:
    """``fetched.csv`` (what was taken) and ``not_taken.csv`` (what was not, and why)."""
    with open(out / "fetched.csv", "w", newline="") as fh:
        writer = SafeCsvWriter(fh)  # repository names are the students' to choose
        writer.writerow(["student", "repository", "commit", "notebooks", *FETCHED_DEADLINE])
        for student, (name, commit, copied) in sorted(done.students.items()):
            t = done.taken.get(student)
            writer.writerow([student, name, commit, copied,
                             *((t.time, t.deadline, t.late, t.last_time, t.pushed,
                                t.last_pushed, t.backdated, t.decided_by, t.by_commit_time)
                               if t else ())])
    with open(out / NOT_TAKEN, "w", newline="") as fh:
        writer = SafeCsvWriter(fh)
        writer.writerow(["repository", "login", "reason"])
        writer.writerows([n.repository, n.login, n.reason] for n in done.not_taken)
        writer.writerows([line.split(": ", 1)[0], "", "could not be fetched: "
                          + line.split(": ", 1)[-1]] for line in done.failed)


# fetch's options for the fields of Limits: (option, field, unit, what it bounds)
_LIMIT_OPTIONS = (
    ("--max-repository-mb", "download_bytes", MB, "MB of git data one clone receives"),
    ("--max-objects", "objects", 1, "git objects in one clone"),
    ("--max-unpacked-mb", "unpacked_bytes", MB, "MB of git objects unpacked, together"),
    ("--max-files", "entries", 1, "files and folders in the commit taken"),
    ("--max-notebook-mb", "notebook_bytes", MB, "MB of one notebook"),
    ("--max-notebooks-mb", "notebooks_bytes", MB, "MB of the notebooks taken, together"),
    ("--max-depth", "depth", 1, "folders a notebook may lie in"),
)


def limits_of(args: argparse.Namespace) -> Limits:
    """The :class:`Limits` fetch's options in ``args`` ask for.

    Raises:
        ValueError: a limit below 1, naming its option.
    """
    values = {}
    for option, attribute, unit, _ in _LIMIT_OPTIONS:
        value = getattr(args, attribute, getattr(Limits(), attribute) // unit)
        if value < 1:
            raise ValueError(f"{option} must be at least 1")
        values[attribute] = value * unit
    return Limits(**values)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``fetch`` command's options."""
    parser.add_argument("--org", required=True,
                        help="the GitHub organisation holding the learners' repositories")
    parser.add_argument("--prefix", required=True,
                        help="the assignment's repository prefix: repositories are named "
                             "PREFIX-LOGIN")
    parser.add_argument("--out", type=Path, required=True,
                        help="submissions folder: notebooks go to OUT/LOGIN/")
    parser.add_argument("--roster", type=Path, metavar="CSV",
                        help="the class roster: only PREFIX-LOGIN for a login on it is taken "
                             "(GitHub Classroom's old roster works as it is)")
    parser.add_argument("--login-column", metavar="NAME",
                        help="the roster's GitHub login column (default: the first of "
                             f"{', '.join(LOGIN_COLUMNS)})")
    parser.add_argument("--id-column", metavar="NAME",
                        help="the roster's identifier column (default: the first of "
                             f"{', '.join(ID_COLUMNS)})")
    parser.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL") or API_URL,
                        help="GitHub's REST API (default: $GITHUB_API_URL, which GitHub "
                             f"Actions sets, else {API_URL})")
    parser.add_argument("--deadline", metavar="TIME",
                        help="take each repository at its last commit GitHub received at or "
                             "before TIME (ISO 8601 with UTC offset, such as "
                             "2026-03-01T23:59:00+01:00); later commits are counted as late")
    parser.add_argument("--extensions", type=Path, metavar="FILE",
                        help="CSV student,deadline: a later deadline for those students")
    parser.add_argument("--commit-times", action="store_true",
                        help="with --deadline: judge by commit times alone (which a learner "
                             "can set), for a server without GitHub's activity API")
    parser.add_argument("--require-push-times", action="store_true",
                        help="with --deadline: refuse a repository (exit 1) where a commit "
                             "would be judged by its commit time because no push GitHub lists "
                             "covers it (always named in the summary)")
    parser.add_argument("--trust-names", action="store_true",
                        help="take PREFIX-LOGIN as LOGIN's by its name alone, without asking "
                             "GitHub whether LOGIN is a collaborator of it (for a token that "
                             "cannot list collaborators; learners who can rename or create "
                             "repositories can then claim another's name)")
    parser.add_argument("--jobs", type=int, default=4, metavar="N",
                        help="repositories fetched at a time (default: %(default)s)")
    bounds = parser.add_argument_group(
        "limits per repository", "a repository past one is not taken (exit 1), named with "
        "the limit; a notebook past its own is left out, named, and the rest taken")
    default = Limits()
    for option, attribute, unit, what in _LIMIT_OPTIONS:
        value = getattr(default, attribute) // unit
        bounds.add_argument(option, type=int, metavar="N", default=value, dest=attribute,
                            help=f"{what} (default: {value})")


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
    if (args.extensions or args.commit_times or args.require_push_times) and not args.deadline:
        print("error: --extensions, --commit-times and --require-push-times need --deadline",
              file=sys.stderr)
        return 2
    if args.commit_times and args.require_push_times:
        print("error: --commit-times decides by commit times alone; --require-push-times "
              "refuses that: give one of them", file=sys.stderr)
        return 2
    try:
        rules = Rules(limits_of(args), args.trust_names, args.require_push_times)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not 1 <= args.jobs <= 64:
        print("error: --jobs must be from 1 to 64", file=sys.stderr)
        return 2
    try:
        deadline = parse_deadline(args.deadline) if args.deadline else None
    except ValueError as exc:
        print(f"error: --deadline: {exc}", file=sys.stderr)
        return 2
    try:
        extensions = read_extensions(args.extensions) if args.extensions else {}
        roster = (read_logins(args.roster, args.login_column, args.id_column)
                  if args.roster else None)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        done = fetch(args.org, args.prefix, args.out, token, args.api_url,
                     deadline=deadline, extensions=extensions, roster=roster, jobs=args.jobs,
                     commit_times=args.commit_times, rules=rules)
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    _report(done, args)
    if done.failed:
        print("error: could not fetch " + "; ".join(done.failed), file=sys.stderr)
        return 1
    if not done.students:
        print(f"error: no repository named {args.prefix}-<login> in {args.org}",
              file=sys.stderr)
        return 1
    return 0


def _report(done: Fetched, args: argparse.Namespace) -> None:
    """The terminal's account of a fetch: what was not taken and why, the totals, lateness."""
    if args.roster is None:
        print(f"warning: no --roster: every repository named {args.prefix}-<name> was taken "
              "as a learner's", file=sys.stderr)
    elsewhere = [n for n in done.not_taken if n.repository and not n.login]
    for item in done.not_taken:
        if item not in elsewhere:
            print(f"not taken: {item.repository or '(no repository)'}: {item.reason}",
                  file=sys.stderr)
    if elsewhere:
        print(f"not taken: {len(elsewhere)} repositories not named {args.prefix}-<login>",
              file=sys.stderr)
    notebooks = sum(n for _, _, n in done.students.values())
    print(f"{len(done.students)} student(s), {notebooks} notebook(s) copied into {args.out} "
          f"({done.seen} repositories in {args.org}, {len(done.not_taken)} not taken, "
          f"{len(done.failed)} failed; every one not taken, and why, in "
          f"{args.out / NOT_TAKEN})")
    late = sorted(s for s, t in done.taken.items() if t.late)
    if late:
        print(f"late (commits after the deadline, not taken): {', '.join(late)}")
    backdated = sorted(s for s, t in done.taken.items() if t.backdated)
    if backdated:
        print("BACKDATED (commits dated by the deadline that GitHub received after it; not "
              "taken): " + ", ".join(f"{s} ({done.taken[s].backdated})" for s in backdated))
    by_time = sorted(s for s, t in done.taken.items() if t.by_commit_time)
    if by_time:
        print("warning: JUDGED BY COMMIT TIME, which a learner can set (no push in GitHub's "
              "activity covers the commit; --require-push-times refuses these): "
              + ", ".join(f"{s} ({done.taken[s].by_commit_time} commit(s)"
                          + (", the one taken" if done.taken[s].decided_by == "commit time"
                             and done.taken[s].commit else "") + ")" for s in by_time),
              file=sys.stderr)
    if args.trust_names:
        print("warning: --trust-names: each repository was taken as the learner's its name "
              "names, without asking GitHub who may push to it", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.grader.classroom.fetch``: the ``fetch`` command, standard library
    only."""
    parser = argparse.ArgumentParser(prog="python -m autograder fetch",
                                     description="Copy the notebooks of each learner's "
                                                 "repository in a GitHub organisation.")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
