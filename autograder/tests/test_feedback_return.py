"""Tests of ``python -m autograder return-feedback``: each learner's feedback pages reach a
``feedback`` branch of their own repository (local bare repositories), and no one else's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from autograder.__main__ import main


def _git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                           "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def _learner_repo(root: Path, name: str) -> Path:
    """A bare repository ``root/name.git`` with the learner's work on ``main``."""
    work, bare = root / "work" / name, root / f"{name}.git"
    work.mkdir(parents=True)
    _git("init", "--quiet", cwd=work)
    (work / "01_arrays.ipynb").write_text("{}")
    _git("add", "-A", cwd=work)
    _git("commit", "--quiet", "-m", "my work", cwd=work)
    _git("init", "--quiet", "--bare", str(bare))
    _git("push", "--quiet", str(bare), "HEAD:refs/heads/main", cwd=work)
    return bare


def _page(results: Path, student: str, assignment: str, text: str) -> Path:
    page = results / student / assignment / "feedback.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text)
    return page


def _branch_files(bare: Path, branch: str = "feedback") -> dict[str, str]:
    names = _git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", branch).split()
    return {n: _git("--git-dir", str(bare), "show", f"{branch}:{n}") for n in names}


def test_each_learner_gets_only_their_own_pages(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Do ann (two pages) and bob (one) each get a feedback branch holding exactly their own
    pages and a README, with main untouched; is cy's page that links to ann's skipped (cy
    gets nothing); is a second return with the same pages no commit, and a changed page one
    new commit; and does a learner without a repository fail the command, naming them?"""
    remotes, results = tmp_path / "remotes", tmp_path / "results"
    ann, bob = _learner_repo(remotes, "hw1-ann"), _learner_repo(remotes, "hw1-bob")
    _learner_repo(remotes, "hw1-cy")
    main_before = _git("--git-dir", str(ann), "rev-parse", "main")
    _page(results, "ann", "00_tiny", "<p>ann tiny: 3/5</p>")
    _page(results, "ann", "01_arrays", "<p>ann arrays: 10/10</p>")
    _page(results, "bob", "00_tiny", "<p>bob tiny: 5/5</p>")
    (results / "cy" / "00_tiny").mkdir(parents=True)
    (results / "cy" / "00_tiny" / "feedback.html").symlink_to(
        results / "ann" / "00_tiny" / "feedback.html")
    template = (remotes / "hw1-{student}.git").as_uri().replace("%7B", "{").replace("%7D", "}")

    assert main(["return-feedback", str(results), "--repos", template]) == 0
    assert "2 learner(s) given new feedback" in capsys.readouterr().out
    ann_files = _branch_files(ann)
    assert set(ann_files) == {"README.md", "feedback/00_tiny.html", "feedback/01_arrays.html"}
    assert ann_files["feedback/01_arrays.html"] == "<p>ann arrays: 10/10</p>"
    bob_files = _branch_files(bob)
    assert set(bob_files) == {"README.md", "feedback/00_tiny.html"}
    assert "ann" not in "".join(bob_files.values())
    assert "feedback" not in _git("--git-dir", str(remotes / "hw1-cy.git"), "branch")
    assert _git("--git-dir", str(ann), "rev-parse", "main") == main_before

    assert main(["return-feedback", str(results), "--repos", template]) == 0
    assert "0 learner(s) given new feedback, 2 unchanged" in capsys.readouterr().out
    _page(results, "bob", "00_tiny", "<p>bob tiny: 5/5 (regraded)</p>")
    _page(results, "dan", "00_tiny", "<p>dan</p>")
    assert main(["return-feedback", str(results), "--repos", template]) == 1
    printed = capsys.readouterr()
    assert "dan: git" in printed.err and "1 learner(s) given new feedback" in printed.out
    assert _git("--git-dir", str(bob), "rev-list", "--count", "feedback").strip() == "2"
    assert _branch_files(bob)["feedback/00_tiny.html"].endswith("(regraded)</p>")


def test_token_is_never_sent_elsewhere(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Is an https address on another host than --site refused for every learner, without
    running git against it, and a template without {student} a usage error?"""
    monkeypatch.setenv("CLASSROOM_TOKEN", "ghp_secret-token-for-tests")
    results = tmp_path / "results"
    _page(results, "ann", "00_tiny", "<p>x</p>")
    assert main(["return-feedback", str(results), "--repos",
                 "https://example.org/hw1-{student}.git"]) == 1
    err = capsys.readouterr().err
    assert "is neither a file address nor https on github.com" in err
    assert "ghp_secret" not in err
    assert main(["return-feedback", str(results), "--repos", "https://github.com/x/y.git"]) == 2
