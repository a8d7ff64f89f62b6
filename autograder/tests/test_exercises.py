"""Tests of the tests: for every exercise question the reference passes, the stub scores
nothing, and each wrong-answer fixture fails with the message its `# expect:` line names."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from autograder.core.notebook import code_of, is_test, nbgrader_meta, questions
from autograder.tests.harness_runs import (
    MAX_FAILURE_LINES,
    harness_report,
    long_or_course_failures,
)

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "solutions").glob("*.ipynb"))


@pytest.fixture(scope="module", params=SOURCES, ids=[p.stem for p in SOURCES])
def report(request: pytest.FixtureRequest) -> dict:
    """The harness's report for one source on this (pinned) stack, shared with test_colab."""
    return harness_report(request.param)


def test_reference_runs_cleanly(report: dict) -> None:
    """Does every non-test cell of the source notebook run without error, and are the expected
    values released in exercises/ those of the reference answers' visible checks?"""
    assert report["errors"] == []


def test_every_check_is_decided_from_the_reference(report: dict) -> None:
    """Does every question's test cell make checks that the reference's run records (so the
    grader, not the kernel, decides them)?"""
    assert {q: e.get("checks") for q, e in report["questions"].items() if not e.get("checks")
            } == {}


_CHECKS = ("check_array", "check_scalar", "check_tree", "check_value")


@pytest.mark.parametrize("path", SOURCES, ids=[p.stem for p in SOURCES])
def test_test_cells_hold_no_expected_values_or_verdicts(path: Path) -> None:
    """Does no test cell pass an expected value to a check, assert, or raise: everything it
    decides is decided from the reference answers' values, outside the student's kernel?"""
    found = []
    for cell in nbformat.read(path, as_version=4).cells:
        if not is_test(cell):
            continue
        for node in ast.walk(ast.parse(code_of(cell))):
            explicit = (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id in _CHECKS
                        and (len(node.args) > 1 or any(k.arg == "expected"
                                                       for k in node.keywords)))
            if explicit or isinstance(node, (ast.Assert, ast.Raise)):
                found.append(f"{nbgrader_meta(cell)['grade_id']} line {node.lineno}")
    assert found == []


def test_reference_answers_pass(report: dict) -> None:
    """Does each question's reference answer pass its test cell, hidden tests included?"""
    failing = {q: e.get("reference") for q, e in report["questions"].items()
               if e.get("reference") != "passed"}
    assert failing == {}


def test_stubs_fail(report: dict) -> None:
    """Does the untouched released stub fail every question (so it scores 0)?"""
    passing = [q for q, e in report["questions"].items() if "should fail" in e.get("stub", "")]
    assert passing == []


def test_wrong_answers_fail(report: dict) -> None:
    """Does every wrong-answer fixture fail its question, with at least two per question?"""
    too_few = {q: len(e["wrong"]) for q, e in report["questions"].items() if len(e["wrong"]) < 2}
    passing = [f"{q}/{case}" for q, e in report["questions"].items()
               for case, res in e["wrong"].items()
               if res == "PASSED (should fail)" or res.startswith("answer cell itself raised")]
    assert too_few == {} and passing == []


def test_wrong_answers_show_their_expected_message(report: dict) -> None:
    """Does every wrong-answer fixture start with `# expect: <text>`, and does the learner see
    that text (the printed feedback, error line and hints)?"""
    missing = [f"{q}/{case}" for q, e in report["questions"].items()
               for case, text in e["expect"].items() if not text]
    not_seen = {f"{q}/{case}": {"expect": e["expect"][case], "seen": e["seen"][case]}
                for q, e in report["questions"].items() for case in e["expect"]
                if e["expect"][case] and e["expect"][case] not in e["seen"][case]}
    assert missing == [] and not_seen == {}


def test_failures_are_short_and_show_no_course_frame(report: dict) -> None:
    """Is every wrong answer's failure, as a notebook on this stack's IPython shows it (the
    printed question, message and hints, then the error display), at most
    MAX_FAILURE_LINES lines, with no frame of the test cell or of the course's package?"""
    shown = [len(s.splitlines()) for e in report["questions"].values()
             for s in e["shown"].values()]
    assert shown and max(shown) <= MAX_FAILURE_LINES or not shown
    assert long_or_course_failures(report) == {}


def test_every_hidden_check_names_its_case(report: dict) -> None:
    """Did the reference run record a case description (hints.case) for every hidden check,
    so that a hidden failure says which case it was?"""
    assert report["uncased"] == []


@pytest.mark.parametrize("path", SOURCES, ids=[p.stem for p in SOURCES])
def test_exercise_shape(path: Path) -> None:
    """Does each exercise have 4 to 8 questions worth at least 10 points in all?"""
    qs = questions(nbformat.read(path, as_version=4))
    assert 4 <= len(qs) <= 8, [q.answer_id for q in qs]
    assert sum(q.points for q in qs) >= 10
    ids = [q.answer_id for q in qs] + [q.tests_id for q in qs]
    assert len(ids) == len(set(ids)), "grade_ids must be unique"
