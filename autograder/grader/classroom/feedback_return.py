"""The ``return-feedback`` command: each learner's feedback pages back to their own repository.

``python -m autograder return-feedback RESULTS --repos TEMPLATE [--branch learn-jax-feedback]
[--jobs N]``

``RESULTS`` is a results folder of ``grade`` or ``merge`` (``<student>/<assignment>/
feedback.html``). ``TEMPLATE`` is the address of a learner's repository with ``{student}``
where the GitHub login goes, such as ``https://github.com/my-class/hw1-{student}.git`` (the
``<prefix>-<login>`` repositories of the course's GitHub organisation, see
:mod:`.fetch`). For every student it commits that student's own pages, and nothing else, as
``feedback/<assignment>.html`` with a ``README.md`` on the branch ``learn-jax-feedback`` of
their repository (the course's own branch: not the ``feedback`` branch GitHub Classroom's
feedback pull request used, nor one a learner works on), created on the first return, a new
commit on the next; a return that changes nothing makes no commit. The learner's own branches
are never touched.

Nothing a learner pushed is ever checked out or read as files. Each commit is built with git's
plumbing (``git fast-import``) in an empty bare scratch repository from bytes the grader
gives it: every page, read from the student's own results folder (never through a link), and
the README become blobs, and the commit's tree holds those files alone, with the branch's
previous commit, fetched as history only, as its parent (so a branch a learner rewrote with
links or other files is replaced by the grader's tree in one commit). A results folder that
is a symbolic link, a page or assignment folder that is one, an assignment name outside
``[A-Za-z0-9_.-]``, or a student folder with pages whose name is not a GitHub login is
refused: that learner's return fails, named, and the command exits 1 after returning
everyone else's.

What a learner can see is what their feedback page shows (the grader never writes the hidden
tests or the reference answers into it). ``--jobs N`` returns N learners at a time; git's
transient network failures are tried again with backoff (:func:`.fetch.run_git`); each learner
done is a progress line ``[k/N]``.

The token (``CLASSROOM_TOKEN``, else ``GITHUB_TOKEN``; it needs write access to the learners'
repositories) is read from the environment only and given to git as fetch does: in an
``http.extraHeader`` through git's environment, for ``https`` addresses on
``--site`` (default ``github.com``) only. A ``file`` address (tests, mirrors) needs none.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grader.classroom.fetch import _USERNAME, TOKEN_VARS, FetchError, git_env, run_git

BRANCH = "learn-jax-feedback"
GIT_TIMEOUT = 300
AUTHOR = ("Learn JAX grader", "grader@users.noreply.github.com")
_ASSIGNMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
README = ("# Feedback for {student}\n\nOne page per graded assignment, in `feedback/`: "
          "download one and open it in a browser. The grader writes this branch "
          "({branch}) and replaces whatever else is on it; your work stays on your own "
          "branch.\n")


class ReturnError(Exception):
    """A problem returning one student's feedback, fit for one line of output."""


@dataclass
class Returned:
    """What a return did: students pushed, unchanged, and failed (with why)."""

    pushed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def pages_of(results: Path, student: str) -> dict[str, Path]:
    """assignment -> feedback page, for ``student``'s own folder of ``results``; assignments
    without a page are left out.

    Raises:
        ReturnError: the folder, an assignment folder or a page is a symbolic link or not a
            plain file, or an assignment's name is not one grading writes.
    """
    folder = results / student
    if folder.is_symlink() or not folder.is_dir():
        raise ReturnError(f"{folder} is a symbolic link or not a folder; nothing returned")
    pages = {}
    for where in sorted(folder.iterdir()):
        page = where / "feedback.html"
        if where.is_symlink():
            raise ReturnError(f"{where} is a symbolic link; nothing returned")
        if not where.is_dir() or not (page.exists() or page.is_symlink()):
            continue
        if not _ASSIGNMENT.match(where.name):
            raise ReturnError(f"assignment folder {where.name!r} is not a name grading "
                              "writes; nothing returned")
        if page.is_symlink() or not page.is_file():
            raise ReturnError(f"{page} is a symbolic link or not a file; nothing returned")
        pages[where.name] = page
    return pages


def _read(page: Path) -> bytes:
    """The bytes of ``page``, never through a symbolic link (even one made after the check)."""
    try:
        fd = os.open(page, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise ReturnError(f"{page} cannot be read ({exc.strerror}); nothing returned"
                          ) from None
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _env(url: str, token: str, site: str) -> dict[str, str]:
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme == "file":
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_CONFIG_")}
        env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_ALLOW_PROTOCOL": "file"})
    elif scheme == "https" and (urllib.parse.urlsplit(url).hostname or "").lower() == site:
        if not token:
            raise ReturnError(f"set {' or '.join(TOKEN_VARS)} to a token that may push to "
                              "the learners' repositories")
        env = git_env(token)
    else:
        raise ReturnError(f"{url} is neither a file address nor https on {site}; not sent "
                          "the token")
    env.update({"GIT_AUTHOR_NAME": AUTHOR[0], "GIT_AUTHOR_EMAIL": AUTHOR[1],
                "GIT_COMMITTER_NAME": AUTHOR[0], "GIT_COMMITTER_EMAIL": AUTHOR[1]})
    return env


def commit_stream(student: str, pages: dict[str, Path], parent: str, branch: str = BRANCH
                  ) -> bytes:
    """``git fast-import``'s input for the feedback commit: each page's bytes and the README as
    blobs, and one commit on ``refs/new`` whose tree is those files alone (``deleteall``
    first: nothing of ``parent``'s tree is kept), ``parent`` (when there is one) as its
    parent."""
    blobs = [("README.md", README.format(student=student, branch=branch).encode())]
    blobs += [(f"feedback/{assignment}.html", _read(page))
              for assignment, page in sorted(pages.items())]
    out = bytearray()
    for mark, (_, data) in enumerate(blobs, start=1):
        out += b"blob\nmark :%d\ndata %d\n" % (mark, len(data)) + data + b"\n"
    message = f"Feedback: {', '.join(sorted(pages))}\n".encode()
    out += (f"commit refs/new\ncommitter {AUTHOR[0]} <{AUTHOR[1]}> {int(time.time())} +0000\n"
            ).encode() + b"data %d\n" % len(message) + message
    if parent:
        out += f"from {parent}\n".encode()
    out += b"deleteall\n"
    out += b"".join(f"M 100644 :{mark} {path}\n".encode()
                    for mark, (path, _) in enumerate(blobs, start=1))
    return bytes(out) + b"\ndone\n"


def return_one(student: str, pages: dict[str, Path], url: str, token: str, scratch: Path,
               branch: str = BRANCH, site: str = "github.com") -> bool:
    """Commit ``pages`` as ``feedback/<assignment>.html`` (and a README) on ``branch`` of the
    repository at ``url`` and push; False when the branch already holds exactly that tree.

    The commit is made by ``git fast-import`` in an empty bare repository from the grader's
    bytes alone (:func:`commit_stream`); the branch's tip, when there is one, is fetched as
    history only (never checked out) to be the parent.

    Raises:
        ReturnError: git failed (its last line, token hidden) or the address is refused.
    """
    env = _env(url, token, site)
    repo = scratch / student
    ref = f"refs/heads/{branch}"

    def git(*args: str, data: bytes | None = None, retries: int = 0) -> str:
        proc = run_git(["git", "-C", str(repo), *args], env, token, f"git {args[0]}",
                       retries=retries, timeout=GIT_TIMEOUT, stdin=data)
        return proc.stdout.decode().strip()

    try:
        run_git(["git", "init", "--quiet", "--bare", "--template=", str(repo)], env, token,
                "git init", retries=0)
        parent = ""
        try:
            git("fetch", "--quiet", "--depth", "1", "--no-tags", "--", url,
                f"+{ref}:refs/previous", retries=3)
            parent = git("rev-parse", "--verify", "refs/previous^{commit}")
        except FetchError as exc:
            if "couldn't find remote ref" not in str(exc):
                raise
        git("fast-import", "--quiet", "--done", data=commit_stream(student, pages, parent,
                                                                   branch))
        if parent:
            new, old = git("rev-parse", "refs/new^{tree}", f"{parent}^{{tree}}").split()
            if new == old:
                return False
        git("push", "--quiet", "--", url, f"refs/new:{ref}", retries=3)
    except FetchError as exc:
        raise ReturnError(str(exc)) from None
    return True


def return_feedback(results: Path, template: str, token: str, branch: str = BRANCH,
                    site: str = "github.com", log: Callable[[str], object] = print,
                    jobs: int = 4) -> Returned:
    """Return every student's pages in ``results`` to the repository ``template`` names for
    them (see the module docstring), ``jobs`` learners at a time."""
    done = Returned()
    work: dict[str, dict[str, Path]] = {}
    for folder in sorted(p for p in results.iterdir() if p.is_dir() or p.is_symlink()):
        student = folder.name
        try:
            pages = pages_of(results, student)
            if pages and not _USERNAME.match(student):
                raise ReturnError("not a GitHub login; its pages are not returned")
        except ReturnError as exc:
            done.failed.append(f"{student}: {exc}")
            log(f"{student}: FAILED ({exc})")
            continue
        if pages:
            work[student] = pages
    lock, count = threading.Lock(), [0]
    with tempfile.TemporaryDirectory(prefix="learn-jax-return-") as tmp, \
            ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(return_one, student, pages, template.replace("{student}",
                                                                            student),
                               token, Path(tmp), branch, site): student
                   for student, pages in work.items()}
        for future in as_completed(futures):
            student = futures[future]
            with lock:
                count[0] += 1
                step = f"[{count[0]}/{len(work)}] {student}"
            try:
                changed = future.result()
            except ReturnError as exc:
                done.failed.append(f"{student}: {exc}")
                log(f"{step}: FAILED ({exc})")
                continue
            (done.pushed if changed else done.unchanged).append(student)
            log(f"{step}: {len(work[student])} page(s) "
                + ("pushed" if changed else "unchanged, nothing pushed"))
    done.failed.sort()
    done.pushed.sort()
    done.unchanged.sort()
    return done


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``return-feedback`` command's options."""
    parser.add_argument("results", type=Path, metavar="RESULTS",
                        help="a results folder of grade or merge")
    parser.add_argument("--repos", required=True, metavar="TEMPLATE",
                        help="each learner's repository, {student} standing for the GitHub "
                             "login: https://github.com/ORG/PREFIX-{student}.git")
    parser.add_argument("--branch", default=BRANCH,
                        help="the course's own branch the pages go to, never one a learner "
                             "works on (default: %(default)s)")
    parser.add_argument("--site", default="github.com",
                        help="the only host the token is sent to (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=4, metavar="N",
                        help="learners returned at a time (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    """Return the feedback; exit status 0, 1 (a learner's return failed) or 2 (usage)."""
    if not args.results.is_dir():
        print(f"error: not a results folder: {args.results}", file=sys.stderr)
        return 2
    if "{student}" not in args.repos:
        print("error: --repos must contain {student} (where the GitHub login goes)",
              file=sys.stderr)
        return 2
    if (not re.fullmatch(r"[A-Za-z0-9._/-]+", args.branch) or args.branch.startswith("-")
            or subprocess.run(["git", "check-ref-format", "--branch", args.branch],
                              capture_output=True).returncode != 0):
        print(f"error: --branch {args.branch!r} is not a branch name", file=sys.stderr)
        return 2
    if not 1 <= args.jobs <= 64:
        print("error: --jobs must be from 1 to 64", file=sys.stderr)
        return 2
    token = next((os.environ[v].strip() for v in TOKEN_VARS if os.environ.get(v, "").strip()),
                 "")
    done = return_feedback(args.results, args.repos, token, args.branch, args.site.lower(),
                           jobs=args.jobs)
    print(f"{len(done.pushed)} learner(s) given new feedback, {len(done.unchanged)} unchanged, "
          f"{len(done.failed)} failed")
    if done.failed:
        print("error: could not return feedback to " + "; ".join(done.failed), file=sys.stderr)
        return 1
    return 0
