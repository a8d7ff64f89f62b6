"""Tests of the tests: for every exercise question the reference passes, the stub scores
nothing, and each wrong-answer fixture fails with the message its `# expect:` line names."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from autograder.notebook import questions
from autograder.tests.harness_runs import harness_report

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "solutions").glob("*.ipynb"))


@pytest.fixture(scope="module", params=SOURCES, ids=[p.stem for p in SOURCES])
def report(request: pytest.FixtureRequest) -> dict:
    """The harness's report for one source on this (pinned) stack, shared with test_colab."""
    return harness_report(request.param)


def test_reference_runs_cleanly(report: dict) -> None:
    """Does every non-test cell of the source notebook run without error?"""
    assert report["errors"] == []


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


@pytest.mark.parametrize("path", SOURCES, ids=[p.stem for p in SOURCES])
def test_exercise_shape(path: Path) -> None:
    """Does each exercise have 4 to 8 questions worth at least 10 points in all?"""
    qs = questions(nbformat.read(path, as_version=4))
    assert 4 <= len(qs) <= 8, [q.answer_id for q in qs]
    assert sum(q.points for q in qs) >= 10
    ids = [q.answer_id for q in qs] + [q.tests_id for q in qs]
    assert len(ids) == len(set(ids)), "grade_ids must be unique"
