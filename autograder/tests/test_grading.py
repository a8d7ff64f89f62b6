"""Tests of autograder.grader.grading: one submission graded in a course directory that other
runs share, which it leaves exactly as it found it (nothing to put back, even after a crash)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from autograder.grader import grading
from autograder.grader.course import close_workers, make_course
from autograder.grader.result import Result
from autograder.grader.submissions import Submission
from autograder.tests.conftest import FIXTURES
from autograder.tests.test_prove_test_cells import stored_cells

ROOT = Path(__file__).resolve().parents[2]
SOURCE = FIXTURES / "course"


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, Path]]:
    """The tiny course generated once (its gradebook), and a folder for trusted records."""
    base = tmp_path_factory.mktemp("grading")
    root = base / "course"
    db = make_course(root, ["00_tiny"], source=SOURCE)
    yield root, db, base / "records"
    close_workers(root)


def _grade(course: tuple[Path, str, Path], case: str, student: str, out: Path
           ) -> Result:
    root, db, records = course
    sub = Submission(FIXTURES / "submissions" / f"{case}.ipynb", student, "00_tiny")
    return grading.grade_one(sub, root, db, out, SOURCE, records_cache=records,
                             feedback=False)


def test_grading_leaves_the_gradebooks_test_sources_byte_identical(
        course: tuple[Path, str, Path], tmp_path: Path) -> None:
    """Does grading a submission (full marks, so its proofs reached its test cells) leave every
    source cell the gradebook stores byte-identical, and write no proof into the course's
    copy of the submission?"""
    root, db, _ = course
    before = stored_cells(db)
    result = _grade(course, "correct", "ada", tmp_path)
    assert (result.status, result.score) == ("graded", 5), result.message
    assert stored_cells(db) == before
    submitted = (root / "submitted" / "ada" / "00_tiny" / "00_tiny.ipynb").read_text()
    assert "learn-jax proof" not in submitted and "hidden-marker-q1" not in submitted
    graded = nbformat.read(root / "autograded" / "ada" / "00_tiny" / "00_tiny.ipynb",
                           as_version=4)
    assert any("hidden-marker-q1" in c.source and "learn-jax proof" in c.source
               for c in graded.cells)


class _Crash(BaseException):
    """A grading process that dies (a kill, not an exception grading catches)."""


def test_a_crash_mid_grade_leaves_nothing_to_restore(course: tuple[Path, str, Path],
                                                     tmp_path: Path, monkeypatch) -> None:
    """While the learner's notebook runs, and after the process dies in the middle of
    grading, is the gradebook as it was (nothing was changed, so nothing is left to undo), and
    does the next submission grade as usual?"""
    _, db, _ = course
    before = stored_cells(db)
    seen: list[str] = []
    real = grading.nbgrader

    def dies_after_autograde(*args: Any, **kwargs: Any) -> Any:
        seen.append(stored_cells(db))  # as the kernel starts
        real(*args, **kwargs)
        seen.append(stored_cells(db))  # as the kernel has run
        raise _Crash

    monkeypatch.setattr(grading, "nbgrader", dies_after_autograde)
    with pytest.raises(_Crash):
        _grade(course, "correct", "bob", tmp_path)
    assert seen == [before, before]
    assert stored_cells(db) == before
    monkeypatch.setattr(grading, "nbgrader", real)
    result = _grade(course, "partial", "cy", tmp_path)
    assert (result.status, result.score) == ("graded", 3), result.message


_GRADE_ONE = """\
import json, sys
from pathlib import Path
from autograder.grader.grading import grade_one
from autograder.grader.submissions import Submission
root, db, records, source, case, student, out = sys.argv[1:]
sub = Submission(Path(case), student, "00_tiny")
r = grade_one(sub, Path(root), db, Path(out), Path(source), records_cache=Path(records),
              feedback=False, spare=False)
print("RESULT", json.dumps([r.status, r.score, r.message]))
"""


def test_two_learners_graded_at_once_in_one_course(course: tuple[Path, str, Path],
                                                   tmp_path: Path) -> None:
    """Two processes grade two learners at the same time against one course directory (each
    its own nbgrader worker and kernel). Does each get its own score, the gradebook's test
    sources staying byte-identical (no run sees, or puts back, the other's proofs)?"""
    root, db, records = course
    before = stored_cells(db)
    # The trusted records first, so both runs reach autograde together.
    _grade(course, "correct", "warm", tmp_path)
    procs = {}
    for case, student in (("correct", "dee"), ("partial", "eve")):
        procs[student] = subprocess.Popen(
            [sys.executable, "-c", _GRADE_ONE, str(root), db, str(records), str(SOURCE),
             str(FIXTURES / "submissions" / f"{case}.ipynb"), student, str(tmp_path / student)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got = {}
    for student, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=600)
        lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
        assert lines, stderr[-2000:]
        got[student] = json.loads(lines[-1].removeprefix("RESULT "))
    assert got["dee"][:2] == ["graded", 5], got["dee"]
    assert got["eve"][:2] == ["graded", 3], got["eve"]
    assert stored_cells(db) == before
