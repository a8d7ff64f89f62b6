"""Tests of the package's layout: the trust boundary between the learner's kernel and the
grader, as the import contracts in pyproject.toml state it (checked with import-linter)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(tree: Path) -> subprocess.CompletedProcess:
    """Run lint-imports on the ``autograder`` package found in ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the package (without its tests) and of the contracts, to break on purpose."""
    shutil.copytree(ROOT / "autograder", tmp_path / "autograder",
                    ignore=shutil.ignore_patterns("tests", "__pycache__"))
    (tmp_path / "autograder" / "tests").mkdir()
    (tmp_path / "autograder" / "tests" / "__init__.py").write_text("")  # the contracts skip it
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_import(tree: Path, module: str, line: str) -> None:
    path = tree / "autograder" / module.replace(".", "/")
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    path.write_text(path.read_text() + f"\n{line}\n")


def test_contracts_hold() -> None:
    """Does the package keep its import contracts (kernel never imports grader, core imports
    neither, no loops between siblings)?"""
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_kernel_importing_the_grader_breaks_the_contract(copy: Path) -> None:
    """Does a learner-side module that imports a grader module fail the check, naming it?"""
    assert _lint(copy).returncode == 0
    _add_import(copy, "kernel.hints", "from autograder.grader.judging import verdict  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "autograder.kernel.hints -> autograder.grader.judging.verdict" in result.stdout


def test_core_importing_the_kernel_breaks_the_contract(copy: Path) -> None:
    """Does the shared core fail the check when it imports the learner's side?"""
    _add_import(copy, "core.compare", "import autograder.kernel.checks  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "autograder.core.compare -> autograder.kernel.checks" in result.stdout


def test_a_loop_between_modules_breaks_the_contract(copy: Path) -> None:
    """Does an import loop between two grader modules (course <-> grading, as there was)
    fail the check?"""
    _add_import(copy, "grader.course", "from autograder.grader import grading  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "no import loops between sibling modules BROKEN" in result.stdout


def test_old_module_names_import_with_a_warning() -> None:
    """Does a notebook saved before the split (``from autograder.hints import feedback``)
    still import, getting the very same module, with a warning naming the new place?"""
    code = ("import warnings\nwarnings.simplefilter('error', FutureWarning)\n"
            "try:\n    import autograder.judge\nexcept FutureWarning as w:\n    print(w)\n"
            "warnings.simplefilter('ignore')\n"
            "import autograder.judge as old, autograder.kernel.reporter as new\n"
            "print(old is new)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert "autograder.judge is now autograder.kernel.reporter" in out
    assert out.strip().endswith("True")


def test_classroom_running_a_submission_breaks_the_contract(copy: Path) -> None:
    """Does the classroom side (rosters, LMS files, fetching, returns) fail the check when it
    imports what runs a submission (here the sandbox)?"""
    assert _lint(copy).returncode == 0
    _add_import(copy, "grader.classroom.fetch", "from autograder.grader import sandbox  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "autograder.grader.classroom.fetch -> autograder.grader.sandbox" in result.stdout


def test_classroom_judging_a_submission_breaks_the_contract(copy: Path) -> None:
    """Does the classroom side fail the check when it imports the judging side (here the
    verdict), so a roster or LMS step can never decide a grade?"""
    _add_import(copy, "grader.classroom.term",
                "from autograder.grader.judging import verdict  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "autograder.grader.classroom.term -> autograder.grader.judging.verdict" in result.stdout


def test_judging_running_a_submission_breaks_the_contract(copy: Path) -> None:
    """Does the judging side fail the check when it imports what runs a submission (here the
    nbgrader course folder), so a verdict never depends on the run's own machinery?"""
    _add_import(copy, "grader.judging.question", "from autograder.grader import course  # noqa")
    result = _lint(copy)
    assert result.returncode == 1
    assert "the judging side decides" in result.stdout and "BROKEN" in result.stdout
