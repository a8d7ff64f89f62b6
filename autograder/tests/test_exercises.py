"""Tests of the tests: for every exercise question the reference passes, the stub scores
nothing, and each wrong-answer fixture fails."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.notebook import questions

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "solutions").glob("*.ipynb"))


@pytest.fixture(scope="module", params=SOURCES, ids=[p.stem for p in SOURCES])
def report(request: pytest.FixtureRequest) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "autograder.tests.exercise_harness", str(request.param)],
        capture_output=True, text=True, cwd=request.param.parent, timeout=600,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("HARNESS-JSON ")]
    assert lines, f"harness printed no report:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1][len("HARNESS-JSON "):])


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
               for case, res in e["wrong"].items() if "should fail" in res or "itself" in res]
    assert too_few == {} and passing == []


@pytest.mark.parametrize("path", SOURCES, ids=[p.stem for p in SOURCES])
def test_exercise_shape(path: Path) -> None:
    """Does each exercise have 4 to 8 questions worth at least 10 points in all?"""
    qs = questions(nbformat.read(path, as_version=4))
    assert 4 <= len(qs) <= 8, [q.answer_id for q in qs]
    assert sum(q.points for q in qs) >= 10
    ids = [q.answer_id for q in qs] + [q.tests_id for q in qs]
    assert len(ids) == len(set(ids)), "grade_ids must be unique"
