"""Tests of ``python -m autograder fetch``, against a fake GitHub API on 127.0.0.1 whose
repositories are local bare git repositories."""

from __future__ import annotations

import base64
import csv
import json
import random
import re
import subprocess
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.grader.classroom import fetch as classroom_fetch
from autograder.grader.classroom.fetch import NOT_TAKEN, FetchError, clone, git_env, student_of

TOKEN = "ghp_fakeTOKENfor-tests-0123456789"
NOTEBOOK = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                           "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def _remote(root: Path, name: str, files: dict[str, str], links: dict[str, str] | None = None
            ) -> str:
    """A bare repository ``root/name.git`` holding ``files`` (and symbolic ``links``); its
    file:// address."""
    work, bare = root / "work" / name, root / f"{name}.git"
    work.mkdir(parents=True)
    _git("init", "--quiet", cwd=work)
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    for rel, target in (links or {}).items():
        (work / rel).symlink_to(target)
    _git("add", "-A", cwd=work)
    _git("commit", "--quiet", "-m", "work", cwd=work)
    _git("init", "--quiet", "--bare", str(bare))
    _git("push", "--quiet", str(bare), "HEAD:refs/heads/main", cwd=work)
    return bare.as_uri()


def _learner(name: str) -> str:
    """The login a classroom's repository ``name`` ends with (after ``hw1-`` or
    ``jax-hw1-``, any case): whom the instructor invited to it."""
    return re.sub(r"^(?:jax-)?hw\d+-", "", name, flags=re.IGNORECASE)


class FakeGitHub:
    """A stand-in for GitHub's REST API for token ``TOKEN``: ``GET /orgs/{org}/repos`` serves
    ``pages``; ``GET /repos/{full_name}/activity`` serves ``activity[name]`` (the branch's
    pushes, two a page, the next page through a ``Link`` header, as GitHub pages it);
    ``GET /repos/{full_name}/collaborators?affiliation=direct`` serves
    ``collaborators[name]``, else the learner its name ends with (:func:`_learner`), as the
    instructor's invitation made them, one a page; the first requests fail as ``failures``
    says (status, message, headers), as a busy GitHub does. Records the requests' paths."""

    def __init__(self, org: str, pages: list[list[dict]],
                 activity: dict[str, list[dict]] | None = None,
                 failures: list[tuple[int, str, dict[str, str]]] | None = None,
                 collaborators: dict[str, list[str]] | None = None) -> None:
        self.org, self.pages, self.requests = org, pages, []
        self.activity, self.failures = activity or {}, list(failures or [])
        self.collaborators = collaborators or {}
        self.full_names = {str(r.get("full_name")) for page in pages for r in page}
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                fake.requests.append(self.path)
                url = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(url.query)
                parts = url.path.strip("/").split("/")
                if fake.failures:
                    status, message, headers = fake.failures.pop(0)
                    self._send(status, {"message": message}, headers)
                elif self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    self._send(401, {"message": "Bad credentials"})
                elif url.path == f"/orgs/{fake.org}/repos":
                    page = int(query["page"][0])
                    assert query["per_page"] == ["100"]
                    self._send(200, fake.pages[page - 1] if page <= len(fake.pages) else [])
                elif (len(parts) == 4 and parts[0] == "repos" and parts[3] == "activity"
                      and f"{parts[1]}/{parts[2]}" in fake.full_names
                      and parts[2] in fake.activity):
                    assert query["ref"] == ["refs/heads/main"]
                    start = int(query.get("after", ["0"])[0])
                    items = fake.activity[parts[2]]
                    headers = {}
                    if start + 2 < len(items):
                        headers["Link"] = (f'<{fake.url}{url.path}?ref=refs%2Fheads%2Fmain&'
                                           f'after={start + 2}>; rel="next"')
                    self._send(200, items[start:start + 2], headers)
                elif (len(parts) == 4 and parts[0] == "repos" and parts[3] == "collaborators"
                      and f"{parts[1]}/{parts[2]}" in fake.full_names):
                    assert query["affiliation"] == ["direct"]
                    people = fake.collaborators.get(parts[2], [_learner(parts[2])])
                    start = int(query.get("page", ["1"])[0]) - 1
                    headers = {}
                    if start + 1 < len(people):
                        headers["Link"] = (f'<{fake.url}{url.path}?affiliation=direct&'
                                           f'page={start + 2}>; rel="next"')
                    self._send(200, [{"login": login, "type": "User"}
                                     for login in people[start:start + 1]], headers)
                else:
                    self._send(404, {"message": "Not Found"})

            def _send(self, status: int, body: object,
                      headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeGitHub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries without the seconds of backoff between them."""
    monkeypatch.setattr(classroom_fetch, "RETRY_BASE", 0.0)


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``CLASSROOM_TOKEN`` set to the fake API's token (``GITHUB_TOKEN`` unset)."""
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("CLASSROOM_TOKEN", TOKEN)
    yield TOKEN


def _repo(name: str, url: str = "") -> dict:
    return {"name": name, "full_name": f"classroom/{name}", "clone_url": url,
            "default_branch": "main"}


def _all_text(folder: Path) -> str:
    return "".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*")
                   if p.is_file())


def test_fetch_pages_filters_and_copies_notebooks(tmp_path: Path, token: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Does fetch read every page of the organisation's repositories, keep only
    PREFIX-<username> ones, copy each one's notebooks (paths kept, checkpoints and symbolic
    links left out) into OUT/<username>/, replace that student's old copy, three at a time with
    a [k/N] line for each, list every repository it did not take with why (terminal and
    not_taken.csv), and never show or store the token?"""
    remotes = tmp_path / "remotes"
    alice = _remote(remotes, "hw1-alice", {
        "exercises/01_arrays.ipynb": NOTEBOOK, "exercises/03_pure_functions.ipynb": NOTEBOOK,
        "exercises/.ipynb_checkpoints/01_arrays-checkpoint.ipynb": NOTEBOOK,
        "README.md": "hello"}, links={"exercises/04_prng.ipynb": "/etc/passwd"})
    carol = _remote(remotes, "HW1-Carol", {"01_arrays.ipynb": NOTEBOOK})
    dave = _remote(remotes, "hw1-dave", {"notes.txt": "no notebook yet"})
    bob = _remote(remotes, "hw10-bob", {"01_arrays.ipynb": NOTEBOOK})
    page1 = ([_repo("hw1-alice", alice)] + [_repo(f"other-{i}") for i in range(97)]
             + [_repo("hw10-bob", bob), _repo("HW1-Carol", carol)])
    page2 = [_repo("hw1-dave", dave), _repo("hw1"), _repo("hw1-bad_name", alice)]
    out = tmp_path / "submissions"
    (out / "alice").mkdir(parents=True)
    (out / "alice" / "old.ipynb").write_text(NOTEBOOK)
    (out / "zoe").mkdir()
    (out / "zoe" / "01_arrays.ipynb").write_text(NOTEBOOK)

    with FakeGitHub("classroom", [page1, page2]) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out", str(out),
                     "--api-url", api.url, "--jobs", "3"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert [urllib.parse.urlsplit(r).query for r in api.requests if r.startswith("/orgs/")
            ] == [f"per_page=100&page={n}" for n in (1, 2, 3)]
    assert sorted(r.split("?")[0] for r in api.requests if "/collaborators" in r) == [
        f"/repos/classroom/{n}/collaborators" for n in ("HW1-Carol", "hw1-alice", "hw1-dave")]
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == ["Carol/01_arrays.ipynb", "alice/exercises/01_arrays.ipynb",
                     "alice/exercises/03_pure_functions.ipynb", "fetched.csv",
                     "not_taken.csv", "zoe/01_arrays.ipynb"]
    assert sorted(line.split("]")[0] for line in printed.out.splitlines()
                  if line.startswith("[")) == ["[1/3", "[2/3", "[3/3"]
    not_taken = {r["repository"]: r["reason"] for r in
                 csv.DictReader((out / "not_taken.csv").open())}
    assert len(not_taken) == 100  # 97 other-*, hw10-bob, hw1, hw1-bad_name
    assert not_taken["hw10-bob"] == "its name does not start with hw1-"
    assert "not a GitHub username" in not_taken["hw1-bad_name"]
    assert "no --roster" in printed.err and "99 repositories not named hw1-<login>" in \
        printed.err
    assert (out / "dave").is_dir() and not list((out / "dave").iterdir())
    rows = list(csv.DictReader((out / "fetched.csv").open()))
    assert [(r["student"], r["repository"], r["notebooks"]) for r in rows] == [
        ("Carol", "HW1-Carol", "1"), ("alice", "hw1-alice", "2"), ("dave", "hw1-dave", "0")]
    assert all(len(r["commit"]) == 40 for r in rows)
    assert "exercises/04_prng.ipynb" in printed.out  # the skipped link is named
    assert "hw1-bad_name" in printed.err and "not a GitHub username" in printed.err
    assert TOKEN not in printed.out + printed.err + _all_text(out)
    assert not list(out.rglob(".git"))


@pytest.mark.parametrize("case", ["bad token", "unknown org"])
def test_refusals_are_one_clear_line(case: str, tmp_path: Path, token: str,
                                     monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Does a bad token (401) or an unknown organisation (404) stop the fetch with exit 1 and
    one line saying what to check, without a traceback or the token?"""
    if case == "bad token":
        monkeypatch.setenv("CLASSROOM_TOKEN", "ghp_wrong-token-000")
    org = "classroom" if case == "bad token" else "no-such-org"
    with FakeGitHub("classroom", [[]]) as api:
        code = main(["fetch", "--org", org, "--prefix", "hw1", "--out",
                     str(tmp_path / "out"), "--api-url", api.url])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    if case == "bad token":
        assert "the token was refused (HTTP 401: Bad credentials)" in err
        assert "ghp_wrong-token-000" not in err
    else:
        assert "no organisation 'no-such-org'" in err and "HTTP 404" in err


def test_unreachable_api_and_missing_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Without CLASSROOM_TOKEN or GITHUB_TOKEN, does fetch exit 2 saying which variable to
    set; is there no --token option; and does an API that cannot be reached give one line?"""
    monkeypatch.delenv("CLASSROOM_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    args = ["fetch", "--org", "o", "--prefix", "p", "--out", str(tmp_path / "out")]
    assert main(args) == 2
    assert "set CLASSROOM_TOKEN or GITHUB_TOKEN" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*args, "--token", TOKEN])
    capsys.readouterr()
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    assert main([*args, "--api-url", "http://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: cannot reach http://127.0.0.1:9") and TOKEN not in err


def test_a_repository_that_cannot_be_cloned_fails_the_fetch(tmp_path: Path, token: str,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    """When one repository cannot be cloned, are the others still copied, and does the
    command exit 1 naming the one that failed?"""
    good = _remote(tmp_path / "remotes", "hw1-alice", {"01_arrays.ipynb": NOTEBOOK})
    gone = (tmp_path / "remotes" / "hw1-ghost.git").as_uri()
    out = tmp_path / "out"
    with FakeGitHub("classroom", [[_repo("hw1-alice", good), _repo("hw1-ghost", gone)]]) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out", str(out),
                     "--api-url", api.url])
    err = capsys.readouterr().err
    assert code == 1 and "could not fetch hw1-ghost: git clone" in err
    assert (out / "alice" / "01_arrays.ipynb").is_file() and not (out / "ghost").exists()


def test_token_reaches_git_only_through_its_environment(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Is the token given to git as an http.extraHeader in git's environment only (not in
    the command line, not in the clone's .git/config), and never to a host other than the
    API's site?"""
    seen: list[tuple[list[str], dict[str, str]]] = []

    def fake_run(argv: list[str], env: dict[str, str], **kwargs: object
                 ) -> subprocess.CompletedProcess:
        seen.append((argv, env))
        return subprocess.CompletedProcess(argv, 0, "0" * 40 + "\n", "")

    monkeypatch.setattr(classroom_fetch.subprocess, "run", fake_run)
    monkeypatch.setattr(classroom_fetch, "check_objects", lambda repo, limits: None)  # no clone
    url = "https://github.com/classroom/hw1-alice.git"
    assert clone(url, tmp_path / "a", TOKEN, "https://api.github.com") == "0" * 40
    header = "Authorization: Basic " + base64.b64encode(
        f"x-access-token:{TOKEN}".encode()).decode()
    assert all(TOKEN not in " ".join(argv) for argv, _ in seen)
    assert seen[0][1]["GIT_CONFIG_KEY_0"] == "http.extraHeader"
    assert seen[0][1]["GIT_CONFIG_VALUE_0"] == header
    assert seen[0][1]["GIT_TERMINAL_PROMPT"] == "0"
    seen.clear()
    with pytest.raises(FetchError, match="not sent the token"):
        clone("https://evil.example/x.git", tmp_path / "b", TOKEN, "https://api.github.com")
    assert seen == []
    monkeypatch.undo()

    # A real clone with that environment: git applies the header, the clone does not keep it.
    remote = _remote(tmp_path / "remotes", "hw1-alice", {"01_arrays.ipynb": NOTEBOOK})
    env = {**git_env(TOKEN), "GIT_ALLOW_PROTOCOL": "file"}
    subprocess.run(["git", "clone", "--quiet", "--depth", "1", remote, str(tmp_path / "c")],
                   env=env, check=True)
    applied = subprocess.run(["git", "-C", str(tmp_path / "c"), "config", "http.extraHeader"],
                             env=env, capture_output=True, text=True).stdout
    assert applied.strip() == header
    assert TOKEN not in (tmp_path / "c" / ".git" / "config").read_text()
    assert base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode() not in (
        tmp_path / "c" / ".git" / "config").read_text()


def test_student_of() -> None:
    """Is the username what follows PREFIX- (prefix in any case), and None otherwise?"""
    assert student_of("hw1-alice", "hw1") == "alice"
    assert student_of("HW1-Al-ice", "hw1") == "Al-ice"
    assert student_of("hw10-bob", "hw1") is None
    assert student_of("hw1-", "hw1") is None
    assert student_of("hw1", "hw1") is None


def _timed_remote(root: Path, name: str, commits: list[tuple[str, str]]) -> str:
    """A bare repository ``root/name.git`` with one commit per (ISO time, text of
    01_arrays.ipynb), committed at that time; its file:// address."""
    import os

    work, bare = root / "work" / name, root / f"{name}.git"
    work.mkdir(parents=True)
    _git("init", "--quiet", cwd=work)
    for when, text in commits:
        (work / "exercises").mkdir(exist_ok=True)
        (work / "exercises" / "01_arrays.ipynb").write_text(text)
        _git("add", "-A", cwd=work)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
                        "--quiet", "-m", when], cwd=work, check=True, capture_output=True,
                       env={**os.environ, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when})
    _git("init", "--quiet", "--bare", str(bare))
    _git("push", "--quiet", str(bare), "HEAD:refs/heads/main", cwd=work)
    return bare.as_uri()


def test_deadline_takes_last_commit_before_it_with_extensions(
        tmp_path: Path, token: str, capsys: pytest.CaptureFixture[str]) -> None:
    """With --deadline 2026-03-01T23:59:00+01:00 and --commit-times (a server without the
    activity API): is alice's repository taken at her commit
    of 23:30 (not the one at 00:10 after it, which is counted late), bob's at his 00:10
    commit because his extension runs to 3 March, and carol's (first commit after the
    deadline) with nothing; does fetched.csv record each commit, its time, the deadline
    applied and the late count, and does the summary of a grading run show the late ones?"""
    remotes = tmp_path / "remotes"
    v = [json.dumps({"cells": [], "metadata": {"v": i}, "nbformat": 4, "nbformat_minor": 5})
         for i in range(3)]
    alice = _timed_remote(remotes, "hw1-alice", [("2026-03-01T20:00:00+01:00", v[0]),
                                                 ("2026-03-01T23:30:00+01:00", v[1]),
                                                 ("2026-03-02T00:10:00+01:00", v[2])])
    bob = _timed_remote(remotes, "hw1-bob", [("2026-03-01T20:00:00+01:00", v[0]),
                                             ("2026-03-02T00:10:00+01:00", v[1])])
    carol = _timed_remote(remotes, "hw1-carol", [("2026-03-02T09:00:00+01:00", v[2])])
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student,deadline\nBob,2026-03-03T12:00:00+01:00\n")
    out = tmp_path / "submissions"
    with FakeGitHub("classroom", [[_repo("hw1-alice", alice), _repo("hw1-bob", bob),
                                   _repo("hw1-carol", carol)]]) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out", str(out),
                     "--api-url", api.url, "--deadline", "2026-03-01T23:59:00+01:00",
                     "--extensions", str(extensions), "--commit-times"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "late (commits after the deadline, not taken): alice, carol" in printed.out
    assert json.loads((out / "alice/exercises/01_arrays.ipynb").read_text())["metadata"] == \
        {"v": 1}
    assert json.loads((out / "bob/exercises/01_arrays.ipynb").read_text())["metadata"] == \
        {"v": 1}
    assert not list((out / "carol").iterdir())
    rows = {r["student"]: r for r in csv.DictReader((out / "fetched.csv").open())}
    assert {s: (r["commit_time"], r["deadline"], r["late_commits"], r["notebooks"])
            for s, r in rows.items()} == {
        "alice": ("2026-03-01T23:30:00+01:00", "2026-03-01T23:59:00+01:00", "1", "1"),
        "bob": ("2026-03-02T00:10:00+01:00", "2026-03-03T12:00:00+01:00", "0", "1"),
        "carol": ("", "2026-03-01T23:59:00+01:00", "1", "0")}
    assert len(rows["alice"]["commit"]) == 40 and rows["carol"]["commit"] == ""
    assert {r["decided_by"] for r in rows.values()} == {"commit time"}
    assert not any("/activity" in r for r in api.requests)  # the activity API is not asked

    from autograder.grader.reports import deadline_section

    lines = "\n".join(deadline_section(out / "fetched.csv"))
    assert "3 repositories taken at their last commit by the deadline" in lines
    assert ("- alice: 1 commit(s) after 2026-03-01T23:59:00+01:00 (the last at "
            "2026-03-02T00:10:00+01:00); graded at " + rows["alice"]["commit"][:12]) in lines
    assert "- carol: 1 commit(s) after" in lines and "nothing was committed" in lines
    assert "bob" not in lines


@pytest.mark.parametrize("deadline, message", [
    ("2026-03-01 23:59", "has no UTC offset"), ("tomorrow", "is not an ISO 8601 time")])
def test_bad_deadline_is_a_usage_error(tmp_path: Path, token: str, deadline: str, message: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Is a deadline without its UTC offset, or not a time at all, refused (exit 2) before
    anything is fetched?"""
    assert main(["fetch", "--org", "o", "--prefix", "p", "--out", str(tmp_path / "out"),
                 "--deadline", deadline]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "out").exists()


def _commits(bare_uri: str) -> list[str]:
    """The commits of a bare repository's main branch, oldest first."""
    bare = urllib.parse.unquote(urllib.parse.urlsplit(bare_uri).path)
    return _git("--git-dir", bare, "rev-list", "--first-parent", "--reverse", "main").split()


def _push(after: str, when: str, before: str = "0" * 40) -> dict:
    """One activity item as GitHub's ``GET /repos/{owner}/{repo}/activity`` gives it."""
    return {"id": 1, "node_id": "x", "before": before, "after": after,
            "ref": "refs/heads/main", "timestamp": when, "activity_type": "push",
            "actor": {"login": "someone"}}


def test_deadline_is_decided_by_when_github_received_the_push(
        tmp_path: Path, token: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Attack and honest twins, deadline 23:59: mallory's last commit is dated 23:00 but
    GitHub received it at 00:30: is it late, reported BACKDATED (terminal and fetched.csv),
    and her 20:00 commit (pushed 20:01) graded? Is ann's 23:30 commit pushed at 23:31 taken on
    time, and ben's commit whose clock said 00:10 but which GitHub received at 23:40 taken on
    time too (his clock, not his push, was off)? Does a push covering two commits date both,
    and does the activity's Link page through?"""
    remotes = tmp_path / "remotes"
    v = [json.dumps({"cells": [], "metadata": {"v": i}, "nbformat": 4, "nbformat_minor": 5})
         for i in range(3)]
    mallory = _timed_remote(remotes, "hw1-mallory", [("2026-03-01T20:00:00+01:00", v[0]),
                                                     ("2026-03-01T23:00:00+01:00", v[1])])
    ann = _timed_remote(remotes, "hw1-ann", [("2026-03-01T19:00:00+01:00", v[0]),
                                             ("2026-03-01T20:00:00+01:00", v[1]),
                                             ("2026-03-01T23:30:00+01:00", v[2])])
    ben = _timed_remote(remotes, "hw1-ben", [("2026-03-01T20:00:00+01:00", v[0]),
                                             ("2026-03-02T00:10:00+01:00", v[1])])
    m, a, b = _commits(mallory), _commits(ann), _commits(ben)
    activity = {
        "hw1-mallory": [_push(m[0], "2026-03-01T19:01:00Z"),
                        _push(m[1], "2026-03-01T23:30:00Z", m[0])],  # 00:30 at +01:00
        # ann pushed her first two commits at once, then the third: three pages of two
        "hw1-ann": [_push(a[1], "2026-03-01T19:05:00Z"), _push(a[1], "2026-03-01T19:06:00Z"),
                    _push(a[1], "2026-03-01T19:07:00Z"), _push(a[1], "2026-03-01T19:08:00Z"),
                    _push(a[2], "2026-03-01T22:31:00Z", a[1])],
        "hw1-ben": [_push(b[0], "2026-03-01T19:01:00Z"),
                    _push(b[1], "2026-03-01T22:40:00Z", b[0])]}
    out = tmp_path / "submissions"
    with FakeGitHub("classroom", [[_repo("hw1-mallory", mallory), _repo("hw1-ann", ann),
                                   _repo("hw1-ben", ben)]], activity) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out", str(out),
                     "--api-url", api.url, "--deadline", "2026-03-01T23:59:00+01:00"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert sum("/repos/classroom/hw1-ann/activity" in r for r in api.requests) == 3
    rows = {r["student"]: r for r in csv.DictReader((out / "fetched.csv").open())}
    assert {s: (r["commit"], r["late_commits"], r["backdated"], r["pushed_at"],
                r["decided_by"]) for s, r in rows.items()} == {
        "mallory": (m[0], "1", "1", "2026-03-01T19:01:00+00:00", "push"),
        "ann": (a[2], "0", "0", "2026-03-01T22:31:00+00:00", "push"),
        "ben": (b[1], "0", "0", "2026-03-01T22:40:00+00:00", "push")}
    assert rows["mallory"]["last_pushed_at"] == "2026-03-01T23:30:00+00:00"
    assert rows["mallory"]["last_commit_time"] == "2026-03-01T23:00:00+01:00"  # second opinion
    assert json.loads((out / "mallory/exercises/01_arrays.ipynb").read_text())["metadata"] == \
        {"v": 0}
    assert json.loads((out / "ben/exercises/01_arrays.ipynb").read_text())["metadata"] == \
        {"v": 1}
    assert "late (commits after the deadline, not taken): mallory" in printed.out
    (line,) = [x for x in printed.out.splitlines() if x.startswith("BACKDATED")]
    assert line.endswith("not taken): mallory (1)")
    assert "BACKDATED" in next(x for x in printed.out.splitlines() if "] mallory:" in x)


def test_deadline_without_the_activity_api_fails_naming_the_way_out(
        tmp_path: Path, token: str, capsys: pytest.CaptureFixture[str]) -> None:
    """When the server has no activity for a repository (404), does fetch --deadline fail that
    repository (exit 1) rather than fall back to dates a learner can set, saying that
    --commit-times is the way to decide by commit times?"""
    alice = _timed_remote(tmp_path / "remotes", "hw1-alice",
                          [("2026-03-01T20:00:00+01:00", NOTEBOOK)])
    with FakeGitHub("classroom", [[_repo("hw1-alice", alice)]]) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out",
                     str(tmp_path / "out"), "--api-url", api.url,
                     "--deadline", "2026-03-01T23:59:00+01:00"])
    err = capsys.readouterr().err
    assert code == 1 and "hw1-alice" in err and "--commit-times" in err and "HTTP 404" in err


def _roster(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("layout", ["own columns", "GitHub Classroom's roster"])
def test_roster_logins_are_matched_exactly(layout: str, tmp_path: Path, token: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """With a roster (the course's own columns named by --login-column and --id-column, or
    GitHub Classroom's old roster as it is): is jax-hw1-redo-ada-l (another assignment) not
    taken as a learner redo-ada-l, are ada-l and Bo taken (as the roster spells Bo), and does
    every repository not taken, and the rostered learner with none, appear with why in the
    terminal and not_taken.csv?"""
    remotes = tmp_path / "remotes"
    names = ("jax-hw1-ada-l", "jax-hw1-redo-ada-l", "jax-hw1-bo", "jax-hw1-stranger")
    pages = [[_repo(n, _remote(remotes, n, {"01_arrays.ipynb": NOTEBOOK})) for n in names]
             + [_repo("jax-hw2-ada-l")]]
    if layout == "own columns":
        roster = _roster(tmp_path / "class.csv", "Student number,GitHub,Name\n"
                         "s001,ada-l,Ada L\ns002,Bo,Bo C\ns003,cy,Cy D\ns004,,Di E\n")
        extra = ["--login-column", "GitHub", "--id-column", "Student number"]
    else:
        roster = _roster(tmp_path / "classroom_roster.csv",
                         '\ufeff"identifier","github_username","github_id","name"\n'
                         '"s001","ada-l","1","Ada L"\n"s002","Bo","2","Bo C"\n'
                         '"s003","cy","3","Cy D"\n"s004","","","Di E"\n')
        extra = []
    out = tmp_path / "out"
    with FakeGitHub("classroom", pages) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "jax-hw1", "--out", str(out),
                     "--api-url", api.url, "--roster", str(roster), *extra])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["Bo", "ada-l"]
    rows = [(r["repository"], r["login"], r["reason"]) for r in
            csv.DictReader((out / "not_taken.csv").open())]
    assert [(r, login) for r, login, _ in rows] == [
        ("jax-hw1-redo-ada-l", "redo-ada-l"), ("jax-hw1-stranger", "stranger"),
        ("jax-hw2-ada-l", ""), ("", "cy")]
    assert "no login on the roster" in rows[0][2]
    assert rows[3][2] == "on the roster (s003), but no repository jax-hw1-cy"
    assert "not taken: jax-hw1-redo-ada-l: 'redo-ada-l' is no login on the roster" in \
        printed.err
    assert "not taken: (no repository): on the roster (s003)" in printed.err
    assert "1 repositories not named jax-hw1-<login>" in printed.err
    assert "no --roster" not in printed.err


@pytest.mark.parametrize("text, message", [
    ("name,email\nAda,a@x.example\n", "no login column"),
    ("login\nada\nADA\n", "line 3: login ADA is listed twice"),
    ("login\nnot a login\n", "line 2: 'not a login' is not a GitHub login")])
def test_bad_roster_is_a_usage_error(text: str, message: str, tmp_path: Path, token: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Is a roster without a login column, with a login twice or with a login GitHub could not
    have refused before anything is fetched (exit 2), naming the line?"""
    roster = _roster(tmp_path / "roster.csv", text)
    assert main(["fetch", "--org", "o", "--prefix", "p", "--out", str(tmp_path / "out"),
                 "--roster", str(roster)]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_a_busy_api_is_tried_again(tmp_path: Path, token: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """When the API first answers 502, then a secondary rate limit's 403, then 429 with
    Retry-After, is each request tried again until it succeeds (exit 0, the repository
    fetched); and is a 403 that is no rate limit refused at once?"""
    alice = _remote(tmp_path / "remotes", "hw1-alice", {"01_arrays.ipynb": NOTEBOOK})
    busy = [(502, "Server Error", {}),
            (403, "You have exceeded a secondary rate limit. Please wait a few minutes.", {}),
            (429, "Too many requests", {"Retry-After": "0"})]
    with FakeGitHub("classroom", [[_repo("hw1-alice", alice)]], failures=busy) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out",
                     str(tmp_path / "out"), "--api-url", api.url])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert len(api.requests) == 6  # three refused, the page, the empty page, collaborators
    assert (tmp_path / "out" / "alice" / "01_arrays.ipynb").is_file()
    with FakeGitHub("classroom", [[]], failures=[(403, "Resource not accessible", {})]) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out",
                     str(tmp_path / "out2"), "--api-url", api.url])
    assert code == 1 and len(api.requests) == 1
    assert "HTTP 403: Resource not accessible" in capsys.readouterr().err


def test_a_transient_git_failure_is_tried_again(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Is a clone that fails with a server's 502 cloned again (and the half-made clone
    removed first), while one that fails for good (no such repository) is not?"""
    calls: list[list[str]] = []
    real_run = subprocess.run
    failing = [True]

    def flaky(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        calls.append(argv)
        if "clone" in argv and failing.pop() if failing else False:
            Path(argv[-1]).mkdir(parents=True)  # what a failed clone can leave behind
            return subprocess.CompletedProcess(argv, 128, b"", b"fatal: unable to access "
                                               b"'x': The requested URL returned error: 502\n")
        return real_run(argv, **kwargs)

    monkeypatch.setattr(classroom_fetch.subprocess, "run", flaky)
    remote = _remote(tmp_path / "remotes", "hw1-alice", {"01_arrays.ipynb": NOTEBOOK})
    assert len(clone(remote, tmp_path / "a", TOKEN, "https://api.github.com")) == 40
    assert sum("clone" in a for a in calls) == 2
    calls.clear()
    with pytest.raises(FetchError, match="git clone"):
        clone((tmp_path / "none.git").as_uri(), tmp_path / "b", TOKEN, "https://api.github.com")
    assert sum("clone" in a for a in calls) == 1


def test_the_wait_before_a_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Does a retry wait what the server's Retry-After says, else until its rate limit's
    reset, else doubling backoff, never longer than RETRY_MAX_WAIT?"""
    monkeypatch.setattr(classroom_fetch, "RETRY_BASE", 1.0)
    monkeypatch.setattr(classroom_fetch.time, "time", lambda: 1_000.0)
    wait = classroom_fetch._wait
    assert wait(0, "7") == 7.0
    assert wait(3, None) == 8.0
    assert wait(0, None, "1030") == 30.0
    assert wait(0, None, "900") == 0.0  # the reset already passed
    assert wait(0, "9999") == classroom_fetch.RETRY_MAX_WAIT
    assert wait(2, "soon") == 4.0  # not a number: backoff


def test_run_git_tries_a_transient_failure_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Does run_git (which return-feedback's fetch and push go through) run git again after
    a failure git calls transient (a server's 503, a dropped connection), and not after one
    that is final (a rejected push), naming it with git's last line, token hidden?"""
    said = [b"fatal: unable to access 'x': The requested URL returned error: 503\n",
            b"error: RPC failed; curl 56 Recv failure: Connection reset by peer\n", None]
    runs: list[list[str]] = []

    def fake(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        runs.append(argv)
        err = said.pop(0)
        return subprocess.CompletedProcess(argv, 0 if err is None else 128, b"ok", err or b"")

    monkeypatch.setattr(classroom_fetch.subprocess, "run", fake)
    assert classroom_fetch.run_git(["git", "push"], {}, TOKEN, "git push").stdout == b"ok"
    assert len(runs) == 3
    said[:] = [f"! [rejected] (fetch first) for {TOKEN}\n".encode()]
    runs.clear()
    with pytest.raises(FetchError, match=r"git push failed: ! \[rejected\]") as caught:
        classroom_fetch.run_git(["git", "push"], {}, TOKEN, "git push")
    assert len(runs) == 1 and TOKEN not in str(caught.value)


def _roster_of(path: Path, *logins: str) -> Path:
    return _roster(path, "identifier,github_username\n"
                   + "".join(f"s{i},{login}\n" for i, login in enumerate(logins)))


def test_a_repository_is_a_learners_by_what_github_says_not_its_name(
        tmp_path: Path, token: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Attacks: mallory made (or renamed) a repository hw1-alice whose only collaborator is
    mallory, and hw1-bob lists bob and mallory (both on the roster): is neither taken, each
    named with who GitHub lists (exit 1), alice's and bob's folders not written? Honest twins:
    is hw1-carol (carol and a teaching assistant not on the roster) taken, and hw1-dave (dave,
    on the API's second page of collaborators)? And does --trust-names take by name alone,
    saying so?"""
    remotes = tmp_path / "remotes"
    names = ("hw1-alice", "hw1-bob", "hw1-carol", "hw1-dave")
    pages = [[_repo(n, _remote(remotes, n, {"01_arrays.ipynb": NOTEBOOK})) for n in names]]
    people = {"hw1-alice": ["mallory"], "hw1-bob": ["bob", "mallory"],
              "hw1-carol": ["carol", "ta-sam"], "hw1-dave": ["instructor-x", "dave"]}
    roster = _roster_of(tmp_path / "roster.csv", "alice", "bob", "carol", "dave", "mallory")
    out = tmp_path / "out"
    with FakeGitHub("classroom", pages, collaborators=people) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out", str(out),
                     "--api-url", api.url, "--roster", str(roster)])
    err = capsys.readouterr().err
    assert code == 1
    assert ("hw1-alice: GitHub does not list alice as a collaborator of classroom/hw1-alice "
            "(it lists mallory)") in err
    assert "hw1-bob: classroom/hw1-bob also lists mallory (on the roster)" in err
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["carol", "dave"]
    assert sum("/hw1-dave/collaborators" in r for r in api.requests) == 2  # two pages
    reasons = {r["repository"]: r["reason"] for r in csv.DictReader((out / NOT_TAKEN).open())}
    assert "does not list alice" in reasons["hw1-alice"]

    with FakeGitHub("classroom", pages, collaborators=people) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out", str(out),
                     "--api-url", api.url, "--roster", str(roster), "--trust-names"])
    err = capsys.readouterr().err
    assert code == 0 and "--trust-names" in err
    assert not any("/collaborators" in r for r in api.requests)
    assert (out / "alice" / "01_arrays.ipynb").is_file()


def _plumb(bare: Path, *args: str, data: bytes = b"") -> str:
    """git's plumbing ``args`` in the bare repository ``bare``, fed ``data``; what it said."""
    return subprocess.run(["git", "--git-dir", str(bare), *args], input=data, check=True,
                          capture_output=True).stdout.decode().strip()


def _crafted(root: Path, name: str, tree: Callable[[Path], str]) -> str:
    """A bare repository ``root/name.git`` whose main branch is one commit of the tree that
    ``tree(bare)`` writes with git's plumbing (as an attacker would, no work tree); its
    file:// address."""
    bare = root / f"{name}.git"
    _git("init", "--quiet", "--bare", str(bare))
    commit = _git("--git-dir", str(bare), "commit-tree", tree(bare), "-m", "crafted").strip()
    _plumb(bare, "update-ref", "refs/heads/main", commit)
    return bare.as_uri()


def _one_blob_many_times(bare: Path) -> str:
    """A tree naming one 0.9 MB notebook 300 times: a few kB of git, 270 MB checked out."""
    notebook = json.dumps({"cells": [], "metadata": {"pad": "0" * 900_000}, "nbformat": 4,
                           "nbformat_minor": 5}).encode()
    blob = _plumb(bare, "hash-object", "-w", "--stdin", data=notebook)
    return _plumb(bare, "mktree", data="".join(
        f"100644 blob {blob}\tcopy-{i:03}.ipynb\n" for i in range(300)).encode())


def _folders_in_folders(bare: Path) -> str:
    """Six levels of ten folders of the level below, ten notebooks at the bottom: a million
    notebooks named by seven small trees."""
    tree = _plumb(bare, "mktree", data="".join(
        f"100644 blob {_plumb(bare, 'hash-object', '-w', '--stdin', data=NOTEBOOK.encode())}"
        f"\tn{i}.ipynb\n" for i in range(10)).encode())
    for _ in range(5):
        tree = _plumb(bare, "mktree", data="".join(
            f"040000 tree {tree}\td{i}\n" for i in range(10)).encode())
    return tree


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _fetched(out: Path, repos: list[dict], *options: str) -> tuple[int, dict[str, str]]:
    """Fetch ``repos`` from a fake organisation into ``out`` with ``options``: the exit status
    and each repository not taken with why (not_taken.csv)."""
    with FakeGitHub("classroom", [repos]) as api:
        code = main(["fetch", "--org", "classroom", "--prefix", "hw1", "--out", str(out),
                     "--api-url", api.url, *options])
    refused = {r["repository"]: r["reason"] for r in csv.DictReader((out / NOT_TAKEN).open())}
    return code, refused


def test_a_tree_that_expands_is_refused_before_it_is_written(
        tmp_path: Path, token: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Attacks, each refused by name with the option that changes its limit (exit 1), its
    learner's folder left as it was: one 0.9 MB notebook named 300 times in a tree (a few kB
    of git, 270 MB checked out: over --max-notebooks-mb) and a million notebooks through six
    levels of folders (over --max-files). Honest twin: is ann's work taken, her 1.5 MB
    notebook (over --max-notebook-mb 1) and one 17 folders deep (over the default 16) left
    out, each by name? And does the run write only ann's small notebook?"""
    remotes = tmp_path / "remotes"
    big = json.dumps({"cells": [], "metadata": {"pad": "x" * (3 * 2**19)}, "nbformat": 4,
                      "nbformat_minor": 5})
    deep = "/".join(f"d{i}" for i in range(17)) + "/deep.ipynb"
    repos = [_repo("hw1-mallory", _crafted(remotes, "hw1-mallory", _one_blob_many_times)),
             _repo("hw1-trudy", _crafted(remotes, "hw1-trudy", _folders_in_folders)),
             _repo("hw1-ann", _remote(remotes, "hw1-ann", {
                 "exercises/01_arrays.ipynb": NOTEBOOK, "exercises/02_big.ipynb": big,
                 deep: NOTEBOOK}))]
    out = tmp_path / "out"
    (out / "mallory").mkdir(parents=True)
    (out / "mallory" / "before.ipynb").write_text(NOTEBOOK)
    code, refused = _fetched(out, repos, "--max-notebook-mb", "1")
    printed = capsys.readouterr()
    assert code == 1
    assert set(refused) == {"hw1-mallory", "hw1-trudy"}, refused
    assert "over 200 MB together (--max-notebooks-mb)" in refused["hw1-mallory"]
    assert "more than 10000 files and folders" in refused["hw1-trudy"]
    assert "(--max-files)" in refused["hw1-trudy"]
    assert "could not fetch hw1-mallory" in printed.err
    assert [p.name for p in (out / "mallory").iterdir()] == ["before.ipynb"]
    assert not (out / "trudy").exists()
    assert sorted(str(p.relative_to(out / "ann")) for p in (out / "ann").rglob("*.ipynb")
                  ) == ["exercises/01_arrays.ipynb"]
    line = next(x for x in printed.out.splitlines() if "] ann:" in x)
    assert "exercises/02_big.ipynb (1.5 MB, over 1 MB, --max-notebook-mb)" in line
    assert f"{deep} (more than 16 folders deep, --max-depth)" in line
    assert _folder_size(out) < 2**16


def test_too_much_git_data_is_refused(tmp_path: Path, token: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Attacks, each refused by name with its option (exit 1), nothing of it written: 3 MB of
    random bytes (over --max-repository-mb 2: the clone stops there), 300 files (over
    --max-objects 200) and 12 MB of zeros (a small pack, over --max-unpacked-mb 10). Honest
    twin: are ben's 50 notebooks in five folders all taken?"""
    remotes = tmp_path / "remotes"
    noise = base64.b64encode(random.randbytes(3 * 2**20 // 4 * 3)).decode()
    repos = [_repo("hw1-oscar", _remote(remotes, "hw1-oscar", {"data.txt": noise})),
             _repo("hw1-olga", _remote(remotes, "hw1-olga", {
                 f"notes/{i}.txt": str(i) for i in range(300)})),
             _repo("hw1-zed", _remote(remotes, "hw1-zed", {"zeros.txt": "0" * 12 * 2**20})),
             _repo("hw1-ben", _remote(remotes, "hw1-ben", {
                 f"exercises/week{i % 5}/{i:02}.ipynb": NOTEBOOK.replace("{}", f'{{"n": {i}}}')
                 for i in range(50)}))]
    out = tmp_path / "out"
    code, refused = _fetched(out, repos, "--max-repository-mb", "2", "--max-objects", "200",
                             "--max-unpacked-mb", "10")
    capsys.readouterr()
    assert code == 1
    assert set(refused) == {"hw1-oscar", "hw1-olga", "hw1-zed"}, refused
    assert "more than 2 MB of git data (--max-repository-mb)" in refused["hw1-oscar"]
    assert "more than 200 git objects (--max-objects)" in refused["hw1-olga"]
    assert "more than 10 MB of git objects unpacked (--max-unpacked-mb)" in refused["hw1-zed"]
    assert not any((out / n).exists() for n in ("oscar", "olga", "zed"))
    assert len(list((out / "ben").rglob("*.ipynb"))) == 50


@pytest.mark.parametrize("option", ["--max-files", "--max-notebook-mb"])
def test_a_limit_below_one_is_a_usage_error(option: str, tmp_path: Path, token: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Is a limit of 0 refused before anything is fetched (exit 2), naming its option?"""
    assert main(["fetch", "--org", "o", "--prefix", "p", "--out", str(tmp_path / "out"),
                 option, "0"]) == 2
    assert f"{option} must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_decision_by_commit_time_is_named_and_can_be_refused(
        tmp_path: Path, token: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Attacks, deadline 23:59: eve's last commit, dated 23:00, is one no push in GitHub's
    activity covers (the list ran out before it), and gus's activity is empty: is each taken
    by its commit time but named JUDGED BY COMMIT TIME in the terminal's summary, its
    progress line and a grading run's summary.md?
    With --require-push-times, is each refused by name (exit 1, folder not written) while the
    honest twin ann, whose pushes cover every commit, is taken by push in both runs?"""
    remotes = tmp_path / "remotes"
    v = [json.dumps({"cells": [], "metadata": {"v": i}, "nbformat": 4, "nbformat_minor": 5})
         for i in range(2)]
    eve = _timed_remote(remotes, "hw1-eve", [("2026-03-01T20:00:00+01:00", v[0]),
                                             ("2026-03-01T23:00:00+01:00", v[1])])
    gus = _timed_remote(remotes, "hw1-gus", [("2026-03-01T21:00:00+01:00", v[1])])
    ann = _timed_remote(remotes, "hw1-ann", [("2026-03-01T20:00:00+01:00", v[0]),
                                             ("2026-03-01T23:30:00+01:00", v[1])])
    e, a = _commits(eve), _commits(ann)
    activity = {"hw1-eve": [_push(e[0], "2026-03-01T19:01:00Z")], "hw1-gus": [],
                "hw1-ann": [_push(a[0], "2026-03-01T19:01:00Z"),
                            _push(a[1], "2026-03-01T22:31:00Z", a[0])]}
    pages = [[_repo("hw1-eve", eve), _repo("hw1-gus", gus), _repo("hw1-ann", ann)]]
    args = ["fetch", "--org", "classroom", "--prefix", "hw1", "--deadline",
            "2026-03-01T23:59:00+01:00"]
    with FakeGitHub("classroom", pages, activity) as api:
        code = main([*args, "--out", str(tmp_path / "out"), "--api-url", api.url])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "out/fetched.csv").open())}
    assert {s: (r["commit"], r["decided_by"]) for s, r in rows.items()} == {
        "eve": (e[1], "commit time"), "gus": (_commits(gus)[0], "commit time"),
        "ann": (a[1], "push")}
    (warning,) = [x for x in printed.err.splitlines() if "JUDGED BY COMMIT TIME" in x]
    assert warning.endswith("eve (1 commit(s), the one taken), gus (1 commit(s), the one "
                            "taken)")
    assert "BY COMMIT TIME" in next(x for x in printed.out.splitlines() if "] eve:" in x)
    assert "BY COMMIT TIME" not in next(x for x in printed.out.splitlines() if "] ann:" in x)
    from autograder.grader.reports import deadline_section

    summary = "\n".join(deadline_section(tmp_path / "out" / "fetched.csv"))
    assert "Judged by commit time, which a learner can set" in summary
    assert summary.rstrip().endswith(": eve, gus.")

    with FakeGitHub("classroom", pages, activity) as api:
        code = main([*args, "--out", str(tmp_path / "strict"), "--api-url", api.url,
                     "--require-push-times"])
    err = capsys.readouterr().err
    assert code == 1
    assert "hw1-eve: 1 commit(s) no push in GitHub's activity covers" in err
    assert "(--require-push-times)" in err and "hw1-gus" in err
    assert sorted(p.name for p in (tmp_path / "strict").iterdir() if p.is_dir()) == ["ann"]
    assert main([*args, "--out", str(tmp_path / "x"), "--commit-times",
                 "--require-push-times"]) == 2
    assert "give one of them" in capsys.readouterr().err
