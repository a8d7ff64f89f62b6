"""Tests of ``python -m autograder fetch``, against a fake GitHub API on 127.0.0.1 whose
repositories are local bare git repositories."""

from __future__ import annotations

import base64
import csv
import json
import subprocess
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from autograder.__main__ import main
from autograder.grader.classroom import fetch as classroom_fetch
from autograder.grader.classroom.fetch import FetchError, clone, git_env, student_of

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


class FakeGitHub:
    """A fake ``GET /orgs/{org}/repos`` serving ``pages`` for token ``TOKEN``; records the
    requests' paths."""

    def __init__(self, org: str, pages: list[list[dict]]) -> None:
        self.org, self.pages, self.requests = org, pages, []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                fake.requests.append(self.path)
                url = urllib.parse.urlsplit(self.path)
                query = urllib.parse.parse_qs(url.query)
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    self._send(401, {"message": "Bad credentials"})
                elif url.path != f"/orgs/{fake.org}/repos":
                    self._send(404, {"message": "Not Found"})
                else:
                    page = int(query["page"][0])
                    assert query["per_page"] == ["100"]
                    self._send(200, fake.pages[page - 1] if page <= len(fake.pages) else [])

            def _send(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
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


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``CLASSROOM_TOKEN`` set to the fake API's token (``GITHUB_TOKEN`` unset)."""
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("CLASSROOM_TOKEN", TOKEN)
    yield TOKEN


def _repo(name: str, url: str = "") -> dict:
    return {"name": name, "full_name": f"classroom/{name}", "clone_url": url}


def _all_text(folder: Path) -> str:
    return "".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*")
                   if p.is_file())


def test_fetch_pages_filters_and_copies_notebooks(tmp_path: Path, token: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Does fetch read every page of the organisation's repositories, keep only
    PREFIX-<username> ones, copy each one's notebooks (paths kept, checkpoints and symbolic
    links left out) into OUT/<username>/, replace that student's old copy, and never show or
    store the token?"""
    remotes = tmp_path / "remotes"
    alice = _remote(remotes, "hw1-alice", {
        "exercises/01_arrays.ipynb": NOTEBOOK, "exercises/02_pure_functions.ipynb": NOTEBOOK,
        "exercises/.ipynb_checkpoints/01_arrays-checkpoint.ipynb": NOTEBOOK,
        "README.md": "hello"}, links={"exercises/03_prng.ipynb": "/etc/passwd"})
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
                     "--api-url", api.url])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert [urllib.parse.urlsplit(r).query for r in api.requests] == [
        f"per_page=100&page={n}" for n in (1, 2, 3)]
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == ["Carol/01_arrays.ipynb", "alice/exercises/01_arrays.ipynb",
                     "alice/exercises/02_pure_functions.ipynb", "fetched.csv",
                     "zoe/01_arrays.ipynb"]
    assert (out / "dave").is_dir() and not list((out / "dave").iterdir())
    rows = list(csv.DictReader((out / "fetched.csv").open()))
    assert [(r["student"], r["repository"], r["notebooks"]) for r in rows] == [
        ("Carol", "HW1-Carol", "1"), ("alice", "hw1-alice", "2"), ("dave", "hw1-dave", "0")]
    assert all(len(r["commit"]) == 40 for r in rows)
    assert "exercises/03_prng.ipynb" in printed.out  # the skipped link is named
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
    """With --deadline 2026-03-01T23:59:00+01:00: is alice's repository taken at her commit
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
                     "--extensions", str(extensions)])
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
