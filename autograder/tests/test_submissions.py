"""Tests of autograder.grader.submissions: the classroom's everyday cases (a Colab copy beside
the original, two copies with work, --assignment from fetch's layout, unknown notebooks),
found from the files alone (no grading); and names that reach file names and reports kept
to a safe alphabet."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.grader.result import Result
from autograder.grader.submissions import discover, is_safe_name, safe_name
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


HOSTILE = ["=1+2", "+cmd", "-rf", "@SUM(A1)", "..", ".hidden", "a b", "x" * 300, "",
           "é", "\tx", "a/../b"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_become_safe_and_distinct(name: str) -> None:
    """Is each name that could be a formula, an option, a path or a hidden file made safe (a
    hash of the original keeps it distinct from the plain name it resembles)?"""
    made = safe_name(name)
    assert is_safe_name(made) and made != name and len(made) <= 100
    assert made not in {safe_name(other) for other in HOSTILE if other != name}


@pytest.mark.parametrize("name", ["ann", "student01", "octo-cat", "00_tiny", "a.b"])
def test_honest_names_are_kept(name: str) -> None:
    """Are GitHub usernames and assignment names kept exactly as they are?"""
    assert is_safe_name(name) and safe_name(name) == name


def test_discover_names_only_safe_students_and_assignments(tmp_path: Path) -> None:
    """Do a student folder named like a formula and a file named ``...ipynb`` (stem ``..``)
    give safe names (no result written outside the folder), beside an honest student?"""
    for folder, file in (("=1+2", "00_tiny.ipynb"), ("ann", "00_tiny.ipynb"),
                         ("eve", "...ipynb")):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / file).write_text("{}")
    subs = {(s.path.parent.name, s.path.name): s for s in discover([tmp_path], ["00_tiny"])}
    assert (subs[("ann", "00_tiny.ipynb")].student, subs[("ann", "00_tiny.ipynb")].assignment) \
        == ("ann", "00_tiny")
    formula = subs[("=1+2", "00_tiny.ipynb")]
    assert is_safe_name(formula.student) and formula.student.startswith("1_2-")
    dots = subs[("eve", "...ipynb")]
    assert is_safe_name(dots.assignment) and dots.assignment != ".."
    for sub in subs.values():
        written = Result(sub.student, sub.assignment, str(sub.path)).write(tmp_path / "out")
        assert written.resolve().is_relative_to((tmp_path / "out").resolve())


def test_a_result_with_an_unsafe_name_is_not_written(tmp_path: Path) -> None:
    """Does writing a result whose student is ``../../x`` fail before writing anything?"""
    with pytest.raises(ValueError, match="not a student or assignment name"):
        Result("../../x", "00_tiny", "x.ipynb").write(tmp_path / "out")
    assert not (tmp_path / "out").exists() and not (tmp_path.parent / "x").exists()
