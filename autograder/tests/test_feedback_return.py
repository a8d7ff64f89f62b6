"""Tests of ``python -m autograder return-feedback``: each learner's feedback pages reach the
course's ``learn-jax-feedback`` branch of their own repository (local bare repositories), and
no one else's, whatever a learner pushed to that branch."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from autograder.__main__ import main

BRANCH = "learn-jax-feedback"


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


def _branch_files(bare: Path, branch: str = BRANCH) -> dict[str, str]:
    names = _git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", branch).split()
    return {n: _git("--git-dir", str(bare), "show", f"{branch}:{n}") for n in names}


def _template(remotes: Path) -> str:
    return (remotes / "hw1-{student}.git").as_uri().replace("%7B", "{").replace("%7D", "}")


def test_each_learner_gets_only_their_own_pages(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Do ann (two pages) and bob (one), returned two at a time with a [k/N] line each, each
    get a learn-jax-feedback branch holding exactly their own pages and a README, with main
    untouched; is a second return with the same pages no commit, and a changed page one new
    commit on top of the last; and does a learner without a repository fail the command,
    naming them?"""
    remotes, results = tmp_path / "remotes", tmp_path / "results"
    ann, bob = _learner_repo(remotes, "hw1-ann"), _learner_repo(remotes, "hw1-bob")
    main_before = _git("--git-dir", str(ann), "rev-parse", "main")
    _page(results, "ann", "00_tiny", "<p>ann tiny: 3/5</p>")
    _page(results, "ann", "01_arrays", "<p>ann arrays: 10/10</p>")
    _page(results, "bob", "00_tiny", "<p>bob tiny: 5/5</p>")
    (results / "bob" / "02_no_page").mkdir()  # graded with --no-feedback: nothing to return
    template = _template(remotes)

    assert main(["return-feedback", str(results), "--repos", template, "--jobs", "2"]) == 0
    printed = capsys.readouterr().out
    assert "2 learner(s) given new feedback" in printed
    assert sorted(line[:5] for line in printed.splitlines() if line.startswith("[")) == [
        "[1/2]", "[2/2]"]
    ann_files = _branch_files(ann)
    assert set(ann_files) == {"README.md", "feedback/00_tiny.html", "feedback/01_arrays.html"}
    assert ann_files["feedback/01_arrays.html"] == "<p>ann arrays: 10/10</p>"
    bob_files = _branch_files(bob)
    assert set(bob_files) == {"README.md", "feedback/00_tiny.html"}
    assert "ann" not in "".join(bob_files.values())
    assert _git("--git-dir", str(ann), "rev-parse", "main") == main_before
    assert _git("--git-dir", str(ann), "branch", "--format=%(refname)").split() == [
        f"refs/heads/{BRANCH}", "refs/heads/main"]  # not GitHub Classroom's "feedback"

    assert main(["return-feedback", str(results), "--repos", template]) == 0
    assert "0 learner(s) given new feedback, 2 unchanged" in capsys.readouterr().out
    _page(results, "bob", "00_tiny", "<p>bob tiny: 5/5 (regraded)</p>")
    _page(results, "dan", "00_tiny", "<p>dan</p>")
    assert main(["return-feedback", str(results), "--repos", template]) == 1
    printed = capsys.readouterr()
    assert "dan: git" in printed.err and "1 learner(s) given new feedback" in printed.out
    assert _git("--git-dir", str(bob), "rev-list", "--count", BRANCH).strip() == "2"
    assert _branch_files(bob)["feedback/00_tiny.html"].endswith("(regraded)</p>")


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and not p.is_symlink()}


def test_a_forged_feedback_branch_changes_nothing_outside_its_own_return(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Attack and honest twin: mallory pushes a learn-jax-feedback branch whose README.md is a
    symbolic link to ann's results page and whose feedback/ is a link to ann's results
    folder (and a feedback branch of her own); ann has an honest branch from an earlier
    return. Does the return leave every results file as it was (nothing written through the
    links), give mallory a commit of the grader's tree only (plain files, her own page, her
    forged commit only as its parent), give ann her new page on top of her previous return,
    leave mallory's own feedback branch alone, and put no one's page in the other's
    repository?"""
    remotes, results = tmp_path / "remotes", tmp_path / "results"
    ann, mallory = _learner_repo(remotes, "hw1-ann"), _learner_repo(remotes, "hw1-mallory")
    _page(results, "ann", "00_tiny", "<p>ann tiny: 2/5</p>")
    _page(results, "mallory", "00_tiny", "<p>mallory tiny: 1/5</p>")
    template = _template(remotes)
    assert main(["return-feedback", str(results), "--repos", template]) == 0
    ann_first = _git("--git-dir", str(ann), "rev-parse", BRANCH).strip()
    _page(results, "ann", "00_tiny", "<p>ann tiny: 3/5 (regraded)</p>")

    forge = tmp_path / "forge"
    _git("clone", "--quiet", str(mallory), str(forge))
    _git("checkout", "--quiet", "--orphan", BRANCH, cwd=forge)
    _git("rm", "-rf", "--quiet", ".", cwd=forge)
    (forge / "README.md").symlink_to(results / "ann" / "00_tiny" / "feedback.html")
    (forge / "feedback").symlink_to(results / "ann" / "00_tiny")
    _git("add", "-A", cwd=forge)
    _git("commit", "--quiet", "-m", "forged", cwd=forge)
    _git("push", "--quiet", "--force", "origin", f"HEAD:refs/heads/{BRANCH}",
         "HEAD:refs/heads/feedback", cwd=forge)
    forged = _git("-C", str(forge), "rev-parse", "HEAD").strip()
    before = _snapshot(results)

    assert main(["return-feedback", str(results), "--repos", template]) == 0
    assert "2 learner(s) given new feedback" in capsys.readouterr().out
    assert _snapshot(results) == before
    tree = _git("--git-dir", str(mallory), "ls-tree", "-r", BRANCH).splitlines()
    assert [line.split()[0] for line in tree] == ["100644", "100644"]  # no link (120000)
    assert _branch_files(mallory) == {
        "README.md": _branch_files(ann)["README.md"].replace("ann", "mallory"),
        "feedback/00_tiny.html": "<p>mallory tiny: 1/5</p>"}
    assert _git("--git-dir", str(mallory), "rev-parse", f"{BRANCH}^").strip() == forged
    assert _git("--git-dir", str(mallory), "rev-parse", "feedback").strip() == forged
    assert _branch_files(ann)["feedback/00_tiny.html"] == "<p>ann tiny: 3/5 (regraded)</p>"
    assert _git("--git-dir", str(ann), "rev-parse", f"{BRANCH}^").strip() == ann_first
    assert "mallory" not in "".join(_branch_files(ann).values())


def test_links_and_odd_names_in_the_results_fail_loudly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Is a page that links to another learner's (cy), a student folder that links to
    another's (dan), an assignment folder that is a link (eve) and an assignment name grading
    never writes (fay) each refused, naming the learner, with exit 1, while bob's honest page
    is still returned and no refused learner's repository gets a branch?"""
    remotes, results = tmp_path / "remotes", tmp_path / "results"
    repos = {name: _learner_repo(remotes, f"hw1-{name}")
             for name in ("ann", "bob", "cy", "dan", "eve", "fay")}
    _page(results, "ann", "00_tiny", "<p>ann</p>")
    _page(results, "bob", "00_tiny", "<p>bob</p>")
    (results / "cy" / "00_tiny").mkdir(parents=True)
    (results / "cy" / "00_tiny" / "feedback.html").symlink_to(
        results / "ann" / "00_tiny" / "feedback.html")
    (results / "dan").symlink_to(results / "ann")
    (results / "eve").mkdir()
    (results / "eve" / "00_tiny").symlink_to(results / "ann" / "00_tiny")
    _page(results, "fay", "00 tiny;x", "<p>fay</p>")

    assert main(["return-feedback", str(results), "--repos", _template(remotes)]) == 1
    printed = capsys.readouterr()
    for name in ("cy", "dan", "eve", "fay"):
        assert f"{name}: " in printed.err.split("could not return feedback to ")[1]
        assert BRANCH not in _git("--git-dir", str(repos[name]), "branch")
    assert "symbolic link" in printed.err and "not a name grading writes" in printed.err
    assert _branch_files(repos["bob"])["feedback/00_tiny.html"] == "<p>bob</p>"
    assert "2 learner(s) given new feedback, 0 unchanged, 4 failed" in printed.out


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
