"""Tests of autograder.grader.submissions: the classroom's everyday cases (a Colab copy beside
the original, two copies with work, --assignment from fetch's layout, unknown notebooks),
found from the files alone (no grading)."""

from __future__ import annotations

import shutil
from pathlib import Path

from autograder.grader.submissions import discover
from autograder.tests.conftest import FIXTURES

SOURCE = FIXTURES / "course"
STUB = FIXTURES / "submissions" / "empty-stub.ipynb"  # the release, untouched
WORK = FIXTURES / "submissions" / "correct.ipynb"
PARTIAL = FIXTURES / "submissions" / "partial.ipynb"


def _put(root: Path, files: dict[str, Path]) -> None:
    for rel, src in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, root / rel)


def test_colab_copy_with_work_beside_untouched_original_is_graded(tmp_path: Path) -> None:
    """A Colab "Copy of 00_tiny.ipynb" holding the answers beside the untouched released
    00_tiny.ipynb: is the copy the one submission, with no problem (and the same the other
    way round: the original with work beside an untouched copy)?"""
    _put(tmp_path, {"ann/00_tiny.ipynb": STUB, "ann/Copy of 00_tiny.ipynb": WORK,
                    "bob/00_tiny.ipynb": WORK, "bob/00_tiny (1).ipynb": STUB})
    found = sorted(discover([tmp_path], ["00_tiny"], source=SOURCE), key=lambda s: s.student)
    assert [(s.student, s.path.name, s.problem) for s in found] == [
        ("ann", "Copy of 00_tiny.ipynb", ""), ("bob", "00_tiny.ipynb", "")]


def test_two_copies_with_work_are_one_needs_attention_item(tmp_path: Path) -> None:
    """Two files that both hold work for one assignment (and an untouched third): is that one
    submission whose problem says it needs attention and names both files with work?"""
    _put(tmp_path, {"ann/00_tiny.ipynb": PARTIAL, "ann/Copy of 00_tiny.ipynb": WORK,
                    "ann/00_tiny (2).ipynb": STUB})
    (only,) = discover([tmp_path], ["00_tiny"], source=SOURCE)
    assert only.problem == (
        "needs attention: 2 files hold work for assignment 00_tiny of student ann "
        "(00_tiny.ipynb, Copy of 00_tiny.ipynb): nothing was graded; keep one of them")


def test_untouched_copies_only_grade_the_original_name(tmp_path: Path) -> None:
    """With the original and a copy both untouched, is the original the one graded (it will
    score 0 as not attempted) and nothing marked as a problem?"""
    _put(tmp_path, {"ann/00_tiny.ipynb": STUB, "ann/Copy of 00_tiny.ipynb": STUB})
    (only,) = discover([tmp_path], ["00_tiny"], source=SOURCE)
    assert (only.path.name, only.problem) == ("00_tiny.ipynb", "")


def test_assignment_option_from_fetch_layout_takes_only_that_assignment(tmp_path: Path) -> None:
    """From fetch's layout <user>/exercises/*.ipynb with nine-ish notebooks each, does
    --assignment 05_jit take each user's 05_jit only (a Colab copy of it too), leave the other
    assignments and an Untitled out where the user has the real one, and take a lone
    unnamed notebook as it?"""
    for rel in ["ann/exercises/01_arrays.ipynb", "ann/exercises/05_jit.ipynb",
                "ann/exercises/07_vmap.ipynb", "ann/exercises/Untitled.ipynb",
                "bob/exercises/Copy of 05_jit.ipynb", "bob/exercises/01_arrays.ipynb",
                "cy/exercises/my_answers.ipynb", "cy/exercises/07_vmap.ipynb"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    known = ["01_arrays", "05_jit", "07_vmap"]
    found = sorted((s.student, s.assignment, s.path.name, s.problem)
                   for s in discover([tmp_path], known, "05_jit"))
    assert found == [("ann", "05_jit", "05_jit.ipynb", ""),
                     ("bob", "05_jit", "Copy of 05_jit.ipynb", ""),
                     ("cy", "05_jit", "my_answers.ipynb", "")]


def test_unknown_notebook_is_its_own_submission(tmp_path: Path) -> None:
    """Is an Untitled.ipynb beside a course notebook found as assignment 'Untitled' (which
    grade reports as an unknown assignment), never merged into a course assignment?"""
    _put(tmp_path, {"ann/00_tiny.ipynb": WORK, "ann/Untitled.ipynb": STUB})
    found = sorted((s.assignment, s.problem) for s in discover([tmp_path], ["00_tiny"],
                                                                source=SOURCE))
    assert found == [("00_tiny", ""), ("Untitled", "")]
