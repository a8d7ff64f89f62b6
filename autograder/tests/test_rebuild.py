"""Tests of autograder.grader.rebuild: answers found in rewritten or damaged submissions."""

from pathlib import Path

import nbformat
import pytest

from autograder.core.notebook import is_test, nbgrader_meta
from autograder.grader.rebuild import rebuild
from autograder.grader.release import student_version
from autograder.grader.submissions import read_submission

CASES = {
    # fixture: (how each answer is found, missing answers)
    "correct": ({"q1_double": "nbgrader id", "q2_set_first": "nbgrader id"}, []),
    "colab-saved": ({"q1_double": "answer-id comment", "q2_set_first": "answer-id comment"}, []),
    "colab-saved-no-markers": ({"q1_double": "position", "q2_set_first": "position"}, []),
    "cells-deleted": ({"q1_double": "nbgrader id"}, ["q2_set_first"]),
    "old-format-v3": ({"q1_double": "nbgrader id", "q2_set_first": "nbgrader id"}, []),
}


@pytest.fixture
def released(tiny_course: Path) -> nbformat.NotebookNode:
    return student_version(nbformat.read(tiny_course / "00_tiny.ipynb", as_version=4))


@pytest.mark.parametrize("case", CASES)
def test_answers_are_found(case: str, released, submissions: Path) -> None:
    """Is each answer found by id, comment or position, and a deleted one reported missing?"""
    result = rebuild(released, read_submission(submissions / f"{case}.ipynb"))
    assert (result.found, result.missing) == CASES[case]


def test_test_cells_come_from_the_course(released, submissions: Path) -> None:
    """Are edited test cells replaced by the course's own?"""
    result = rebuild(released, read_submission(submissions / "tests-edited.ipynb"))
    tests = [c.source for c in result.notebook.cells if is_test(c)]
    assert tests == [c.source for c in released.cells if is_test(c)]
    assert not any("all good" in c.source for c in result.notebook.cells)


def test_duplicated_answer_last_wins(released, submissions: Path) -> None:
    """When two cells claim an answer, is the last graded and a note left?"""
    result = rebuild(released, read_submission(submissions / "reordered-duplicated.ipynb"))
    double = next(c.source for c in result.notebook.cells
                  if nbgrader_meta(c).get("grade_id") == "q1_double")
    assert "3 * x" not in double and "several cells" in result.notes[0]


def test_extra_student_cells_follow_their_answer(released, submissions: Path) -> None:
    """Is a helper cell the student added kept right after the answer it follows?"""
    cells = rebuild(released, read_submission(submissions / "extra-helper-cell.ipynb")
                    ).notebook.cells
    index = next(i for i, c in enumerate(cells) if nbgrader_meta(c).get("grade_id") == "q1_double")
    assert "def times" in cells[index + 1].source


def test_rebuilt_notebook_is_valid(released, submissions: Path) -> None:
    """Is the rebuilt notebook valid nbformat v4?"""
    nb = rebuild(released, read_submission(submissions / "colab-saved.ipynb")).notebook
    nbformat.validate(nb)
