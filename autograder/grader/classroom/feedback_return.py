"""The ``return-feedback`` command: each learner's feedback pages back to their own repository.

``python -m autograder return-feedback RESULTS --repos TEMPLATE [--branch feedback]``

``RESULTS`` is a results folder of ``grade`` or ``merge`` (``<student>/<assignment>/
feedback.html``). ``TEMPLATE`` is the address of a learner's repository with ``{student}``
where the GitHub username goes, such as ``https://github.com/my-class/hw1-{student}.git``
(GitHub Classroom's ``<prefix>-<username>`` repositories). For every student it commits that
student's own pages, and nothing else, as ``feedback/<assignment>.html`` on the branch
``feedback`` of their repository (created on the first return, a new commit on the next; a
page that did not change makes no commit) and pushes it. The learner's own branches are never
touched: the feedback branch holds only feedback.

What a learner can see is what their feedback page shows (the grader never writes the hidden
tests or the reference answers into it). Pages are read from the student's own folder only;
a folder whose name is not a GitHub username, or a page that is a symbolic link, is skipped;
each repository is pushed in its own scratch clone, so no page reaches anyone else's.

The token (``CLASSROOM_TOKEN``, else ``GITHUB_TOKEN``; it needs write access to the learners'
repositories) is read from the environment only and given to git as fetch does: in an
``http.extraHeader`` through git's environment, for ``https`` addresses on
``--site`` (default ``github.com``) only. A ``file`` address (tests, mirrors) needs none.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grader.classroom.fetch import _USERNAME, TOKEN_VARS, _hide, git_env

BRANCH = "feedback"
GIT_TIMEOUT = 300
AUTHOR = ("Learn JAX grader", "grader@users.noreply.github.com")


class ReturnError(Exception):
    """A problem returning one student's feedback, fit for one line of output."""


@dataclass
class Returned:
    """What a return did: students pushed, unchanged, skipped (with why) and failed."""

    pushed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def pages_of(results: Path, student: str) -> dict[str, Path]:
    """assignment -> feedback page, for ``student``'s own folder of ``results`` (links and
    anything that is not a plain file left out)."""
    pages = {}
    for page in sorted((results / student).glob("*/feedback.html")):
        if page.is_file() and not page.is_symlink() and not page.parent.is_symlink():
            pages[page.parent.name] = page
    return pages


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


def _git(repo: Path, env: dict[str, str], token: str, *args: str,
         check: bool = True) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise ReturnError(f"git {args[0]} took more than {GIT_TIMEOUT} s") from None
    if check and proc.returncode != 0:
        said = (_hide(proc.stderr, token).strip().splitlines() or ["no message"])[-1]
        raise ReturnError(f"git {args[0]} failed: {said[:300]}")
    return proc


def return_one(student: str, pages: dict[str, Path], url: str, token: str, scratch: Path,
               branch: str = BRANCH, site: str = "github.com") -> bool:
    """Commit ``pages`` as ``feedback/<assignment>.html`` on ``branch`` of the repository at
    ``url`` and push; False when nothing changed (no commit).

    Raises:
        ReturnError: git failed (its last line, token hidden) or the address is refused.
    """
    env = _env(url, token, site)
    repo = scratch / student
    repo.mkdir(parents=True)
    _git(repo, env, token, "init", "--quiet")
    found = _git(repo, env, token, "fetch", "--quiet", "--depth", "1", "--no-tags", "--", url,
                 f"refs/heads/{branch}", check=False)
    if found.returncode == 0:
        _git(repo, env, token, "checkout", "--quiet", "-B", branch, "FETCH_HEAD")
    else:
        missing = _git(repo, env, token, "ls-remote", "--", url, check=True)  # reachable?
        if f"refs/heads/{branch}" in missing.stdout:
            raise ReturnError(f"git fetch of {branch} failed: {found.stderr.strip()[-200:]}")
        _git(repo, env, token, "checkout", "--quiet", "--orphan", branch)
    folder = repo / "feedback"
    folder.mkdir(exist_ok=True)
    for assignment, page in pages.items():
        shutil.copyfile(page, folder / f"{assignment}.html")
    (repo / "README.md").write_text(
        f"# Feedback for {student}\n\nOne page per graded assignment, in `feedback/`: "
        "download one and open it in a browser. This branch holds feedback only; your work "
        "stays on your own branch.\n", encoding="utf-8")
    _git(repo, env, token, "add", "-A")
    if not _git(repo, env, token, "status", "--porcelain").stdout.strip():
        return False
    names = ", ".join(sorted(pages))
    _git(repo, env, token, "commit", "--quiet", "-m", f"Feedback: {names}")
    _git(repo, env, token, "push", "--quiet", "--", url, f"HEAD:refs/heads/{branch}")
    return True


def return_feedback(results: Path, template: str, token: str, branch: str = BRANCH,
                    site: str = "github.com", log=print) -> Returned:
    """Return every student's pages in ``results`` to the repository ``template`` names for
    them (see the module docstring)."""
    done = Returned()
    with tempfile.TemporaryDirectory(prefix="learn-jax-return-") as tmp:
        for folder in sorted(p for p in results.iterdir() if p.is_dir()):
            student = folder.name
            if folder.is_symlink() or not _USERNAME.match(student):
                done.skipped.append(f"{student}: not a GitHub username")
                continue
            pages = pages_of(results, student)
            if not pages:
                continue
            url = template.replace("{student}", student)
            try:
                changed = return_one(student, pages, url, token, Path(tmp), branch, site)
            except ReturnError as exc:
                done.failed.append(f"{student}: {exc}")
                log(f"{student}: FAILED ({exc})")
                continue
            (done.pushed if changed else done.unchanged).append(student)
            log(f"{student}: {len(pages)} page(s) "
                + ("pushed" if changed else "unchanged, nothing pushed"))
    return done


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``return-feedback`` command's options."""
    parser.add_argument("results", type=Path, metavar="RESULTS",
                        help="a results folder of grade or merge")
    parser.add_argument("--repos", required=True, metavar="TEMPLATE",
                        help="each learner's repository, {student} standing for the GitHub "
                             "username: https://github.com/ORG/PREFIX-{student}.git")
    parser.add_argument("--branch", default=BRANCH,
                        help="the branch the pages go to (default: %(default)s)")
    parser.add_argument("--site", default="github.com",
                        help="the only host the token is sent to (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    """Return the feedback; exit status 0, 1 (a repository failed) or 2 (usage)."""
    if not args.results.is_dir():
        print(f"error: not a results folder: {args.results}", file=sys.stderr)
        return 2
    if "{student}" not in args.repos:
        print("error: --repos must contain {student} (where the GitHub username goes)",
              file=sys.stderr)
        return 2
    if not re.fullmatch(r"[A-Za-z0-9._/-]+", args.branch) or args.branch.startswith("-"):
        print(f"error: --branch {args.branch!r} is not a branch name", file=sys.stderr)
        return 2
    token = next((os.environ[v].strip() for v in TOKEN_VARS if os.environ.get(v, "").strip()),
                 "")
    done = return_feedback(args.results, args.repos, token, args.branch, args.site.lower())
    for line in done.skipped:
        print(f"skipped {line}", file=sys.stderr)
    print(f"{len(done.pushed)} learner(s) given new feedback, {len(done.unchanged)} unchanged, "
          f"{len(done.failed)} failed")
    if done.failed:
        print("error: could not return feedback to " + "; ".join(done.failed), file=sys.stderr)
        return 1
    return 0
