"""Hostile submissions that try to read a hidden test's expected value, or to write past the
output budget through a field it once left out (issue 38, items 4 and 5), graded in one
batch beside honest twins.

Each case is the tiny course's correct submission with question 1's answer replaced (question
2 stays correct and is worth 3 of the 5 points), or, for ``many-errors``, with ten cells of
the student's own after it. Every file the grading run keeps is read back: for the learner
the feedback page (made from the graded notebook, which is not kept), and ``result.json``,
``summary.md`` and ``grades.csv`` (the instructor's, which carry the same messages).
"""

from __future__ import annotations

import json
import os

import nbformat
import pytest

from autograder.__main__ import main
from autograder.core.notebook import nbgrader_meta
from autograder.grader.course import isolation
from autograder.tests.conftest import FIXTURES

CORRECT_Q1 = "def double(x):\n    return 2 * x\n"
MB30 = 30_000_000

# ------------------------------------------------ hidden tests' expected values (item 4)
# The tiny course's visible check is double(arange(3.0)); its hidden one double(ones((2, 2))),
# expected 2.0 everywhere. Each probe passes the visible check and fails the hidden one.
HIDDEN_PROBES = {  # case -> (answer, words its message must hold)
    "hidden-values-probe": ("def double(x):\n    return 2 * x if x.ndim == 1 else 2.74 * x\n",
                            "wrong values: the largest error is between 10% and 50%"),
    "hidden-shape-probe": ("def double(x):\n    return 2 * x if x.ndim == 1 else "
                           "2 * x.ravel()\n", "wrong shape: got shape (4,)"),
}
VISIBLE_TWIN = ("visible-wrong", "def double(x):\n    return 2.74 * x\n")  # quotes its values

# ------------------------------------------------ every field of every output (item 5)
OUTPUT_ATTACKS = {
    "huge-evalue": CORRECT_Q1 + f"raise ValueError('v' * {MB30})\n",
    "huge-metadata": CORRECT_Q1 + f"display({{'text/plain': 'ok'}}, metadata={{'m': 'x' * "
                                  f"{MB30}}}, raw=True)\n",
    "huge-update": CORRECT_Q1 + "h = display('small', display_id=True)\n"
                                f"h.update({{'text/plain': 'u' * {MB30}}}, raw=True)\n",
}
MANY_ERRORS = "many-errors"  # ten cells of the student's own, each raising a 12 MB error
HONEST_PRINT = ("honest-modest-print", CORRECT_Q1 + "print('modest output ' * 300)\n")


def _with_q1(source: str) -> nbformat.NotebookNode:
    nb = nbformat.read(FIXTURES / "submissions" / "correct.ipynb", as_version=4)
    for cell in nb.cells:
        if nbgrader_meta(cell).get("grade_id") == "q1_double":
            cell.source = f"# answer-id: q1_double\n{source}"
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """Grade the probes, the output attacks and their honest twins in one batch."""
    if isolation() != "bubblewrap" and os.environ.get("LEARN_JAX_REQUIRE_SANDBOX") == "1":
        pytest.fail("LEARN_JAX_REQUIRE_SANDBOX=1 but bubblewrap does not work here")
    root = tmp_path_factory.mktemp("leaks")
    cases = {case: answer for case, (answer, _) in HIDDEN_PROBES.items()}
    cases.update(OUTPUT_ATTACKS)
    cases.update(dict([VISIBLE_TWIN, HONEST_PRINT]))
    for case, answer in cases.items():
        (root / "subs" / case).mkdir(parents=True)
        nbformat.write(_with_q1(answer), root / "subs" / case / "00_tiny.ipynb")
    many = _with_q1(CORRECT_Q1)
    many.cells += [nbformat.v4.new_code_cell(f"raise ValueError('e' * {12_000_000})")
                   for _ in range(10)]
    (root / "subs" / MANY_ERRORS).mkdir()
    nbformat.write(many, root / "subs" / MANY_ERRORS / "00_tiny.ipynb")
    out = root / "out"
    status = main(["grade", str(root / "subs"), "--source", str(FIXTURES / "course"),
                   "--out", str(out), "--jobs", "2", "--course", str(root / "course"),
                   "--cell-timeout", "60", "--notebook-timeout", "120"])
    assert status == 0
    results = {p.parent.parent.name: json.loads(p.read_text())
               for p in out.glob("*/*/result.json")}
    return {"root": root, "out": out, "results": results}


def _learner_files(graded: dict, case: str) -> dict[str, str]:
    """Every file of the run that holds this case's messages, by name."""
    folder = graded["out"] / case / "00_tiny"
    return {"result.json": (folder / "result.json").read_text(),
            "feedback.html": (folder / "feedback.html").read_text(),
            "summary.md": (graded["out"] / "summary.md").read_text(),
            "grades.csv": (graded["out"] / "grades.csv").read_text()}


def _q1(graded: dict, case: str) -> dict:
    return next(q for q in graded["results"][case]["questions"] if q["id"] == "q1_double")


@pytest.mark.slow
@pytest.mark.parametrize("case", HIDDEN_PROBES)
def test_a_hidden_failure_reaches_no_file_with_its_expected_value(graded: dict, case: str
                                                                   ) -> None:
    """Does an answer that passes the visible check and fails the hidden one score 3, with a
    message naming the hidden check and the kind of difference, while no file of the run
    (result.json, the feedback page, summary.md, grades.csv) quotes
    the expected value ("expected 2"), an expected shape or the factor (1.37) it is off by?
    And does the visible twin, wrong on the visible check, still quote its values?"""
    _, words = HIDDEN_PROBES[case]
    result = graded["results"][case]
    assert (result["status"], result["score"]) == ("graded", 3), result["questions"]
    q1 = _q1(graded, case)
    assert "double(ones((2, 2)))" in q1["message"] and words in q1["message"], q1
    for name, text in _learner_files(graded, case).items():
        for secret in ("expected 2", "expected shape (2, 2)", "1.37 times", "(expected 2,"):
            assert secret not in text, (name, secret)
    twin = _q1(graded, VISIBLE_TWIN[0])
    assert "expected 4, got 5.48" in twin["message"] and "1.37 times" in twin["message"], twin


@pytest.mark.slow
@pytest.mark.parametrize("case", [*OUTPUT_ATTACKS, MANY_ERRORS])
def test_no_output_field_escapes_the_budget(graded: dict, case: str) -> None:
    """Does each attack (a 30 MB error value, 30 MB of display metadata, a 30 MB display
    update, ten 12 MB errors in cells of the student's own) keep its 5 points with
    result.json under 20 kB and the feedback page (made from the graded notebook) under
    2 MB, while the honest twin that prints 6 kB keeps its points and all of its output?"""
    result = graded["results"][case]
    assert (result["status"], result["score"]) == ("graded", 5), result
    folder = graded["out"] / case / "00_tiny"
    assert (folder / "result.json").stat().st_size < 20_000
    assert (folder / "feedback.html").stat().st_size < 2_000_000
    honest, _ = HONEST_PRINT
    assert graded["results"][honest]["score"] == 5
    page = (graded["out"] / honest / "00_tiny" / "feedback.html").read_text()
    assert page.count("modest output") == 1 + 300  # in its source once, then printed
