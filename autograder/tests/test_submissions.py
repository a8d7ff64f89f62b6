"""Tests of autograder.grader.submissions: names that reach file names and reports are kept
within a safe alphabet, each hostile name beside an honest one kept as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.grader.result import Result
from autograder.grader.submissions import discover, is_safe_name, safe_name

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
