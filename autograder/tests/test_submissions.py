"""Tests of autograder.grader.submissions: the classroom's everyday cases (a Colab copy beside
the original, two copies with work, --assignment from fetch's layout, unknown notebooks),
found from the files alone (no grading); and names that reach file names and reports kept
to a safe alphabet."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder.grader.result import Result
from autograder.grader.submissions import discover, is_safe_name, safe_name, student_folder
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
    --assignment 06_jit take each user's 06_jit only (a Colab copy of it too), leave the other
    assignments and an Untitled out where the user has the real one, and take a lone
    unnamed notebook as it?"""
    for rel in ["ann/exercises/01_arrays.ipynb", "ann/exercises/06_jit.ipynb",
                "ann/exercises/10_vmap.ipynb", "ann/exercises/Untitled.ipynb",
                "bob/exercises/Copy of 06_jit.ipynb", "bob/exercises/01_arrays.ipynb",
                "cy/exercises/my_answers.ipynb", "cy/exercises/10_vmap.ipynb"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    known = ["01_arrays", "06_jit", "10_vmap"]
    found = sorted((s.student, s.assignment, s.path.name, s.problem)
                   for s in discover([tmp_path], known, "06_jit"))
    assert found == [("ann", "06_jit", "06_jit.ipynb", ""),
                     ("bob", "06_jit", "Copy of 06_jit.ipynb", ""),
                     ("cy", "06_jit", "my_answers.ipynb", "")]


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


# ---------------------------------------------------------------- identity from the layout:
# fetch's <user>/exercises/ nesting, and folders inside a learner's folder that name another


def _fetched(root: Path, files: dict[str, Path]) -> Path:
    """A folder as fetch fills it: the notebooks, and its record at the top."""
    _put(root, files)
    (root / "fetched.csv").write_text("student,repository,commit,notebooks\n")
    return root


def test_a_fetched_notebook_given_by_name_is_its_users(tmp_path: Path) -> None:
    """Is ``Copy of 00_tiny.ipynb`` in fetch's ``ada/exercises/`` given by name (the testers'
    command, which graded a student called ``exercises``) ada's 00_tiny, as is ada's folder
    given alone and the whole fetched folder; and without fetch's record, is a file in a
    course ``exercises/`` folder still its user's?"""
    subs = _fetched(tmp_path / "subs", {"ada/exercises/Copy of 00_tiny.ipynb": WORK,
                                        "bo/exercises/00_tiny.ipynb": PARTIAL})
    for given in (subs / "ada" / "exercises" / "Copy of 00_tiny.ipynb", subs / "ada"):
        (only,) = discover([given], ["00_tiny"], "00_tiny")
        assert (only.student, only.assignment, only.problem) == ("ada", "00_tiny", ""), given
    assert sorted((s.student, s.assignment) for s in discover([subs], ["00_tiny"])) == [
        ("ada", "00_tiny"), ("bo", "00_tiny")]
    (subs / "fetched.csv").unlink()
    (only,) = discover([subs / "bo" / "exercises" / "00_tiny.ipynb"], ["00_tiny"])
    assert (only.student, only.assignment) == ("bo", "00_tiny")


def test_a_folder_naming_another_learner_inside_a_repository_is_its_owners(
        tmp_path: Path) -> None:
    """Mallory's repository holds ``exercises/alice/00_tiny.ipynb`` (alice's name, full
    marks) beside her own untouched notebook, and a ``fetched.csv`` of her own in that folder,
    beside alice's honest nested layout: whether the whole folder, mallory's folder, or that
    file by name is graded, or ``..`` leads through mallory's folder to it, is the file
    mallory's (the one with work, graded), and alice's only her own notebook?"""
    subs = _fetched(tmp_path / "subs", {"alice/exercises/00_tiny.ipynb": PARTIAL,
                                        "mallory/exercises/00_tiny.ipynb": STUB,
                                        "mallory/exercises/alice/00_tiny.ipynb": WORK})
    (subs / "mallory" / "exercises" / "alice" / "fetched.csv").write_text("student\n")
    planted = subs / "mallory" / "exercises" / "alice" / "00_tiny.ipynb"
    dotted = subs / "alice" / ".." / "mallory" / "exercises" / "alice" / "00_tiny.ipynb"
    for given in ([subs], [subs / "mallory"], [planted], [dotted]):
        found = {s.student: s for s in discover(given, ["00_tiny"], source=SOURCE)}
        assert found["mallory"].path.resolve() == planted.resolve(), given
        assert found["mallory"].problem == ""
        if given == [subs]:
            assert found["alice"].path == subs / "alice" / "exercises" / "00_tiny.ipynb"
        else:
            assert "alice" not in found, given
    # with the submissions folder given (as regrade does), the same
    found = discover([subs / "mallory"], ["00_tiny"], source=SOURCE, root=subs)
    assert [(s.student, s.path.resolve()) for s in found] == [("mallory", planted.resolve())]


def test_a_student_is_a_plain_folder_of_the_submissions(tmp_path: Path) -> None:
    """Does :func:`student_folder` (regrade's ``--student``) take ``alice`` and refuse a path
    through another learner's folder, ``..``, a link to another's folder and a missing one;
    and does discover with ``root`` refuse a path outside it?"""
    subs = _fetched(tmp_path / "subs", {"alice/exercises/00_tiny.ipynb": WORK,
                                        "mallory/exercises/00_tiny.ipynb": STUB})
    (subs / "eve").symlink_to(subs / "alice", target_is_directory=True)
    assert student_folder(subs, "alice") == subs.resolve() / "alice"
    for bad, why in (("mallory/exercises/../alice", "not a student name"),
                     ("../subs/alice", "not a student name"), ("..", "not a student name"),
                     ("eve", "no folder eve"), ("zed", "no folder zed")):
        with pytest.raises(ValueError, match=why):
            student_folder(subs, bad)
    with pytest.raises(ValueError, match="not inside the submissions folder"):
        discover([tmp_path], ["00_tiny"], root=subs)
