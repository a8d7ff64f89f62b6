"""Tests of autograder.grader.preprocessors: MarkAnswerCells and HideTestSource."""

import nbformat
from nbconvert.exporters import NotebookExporter

from autograder.grader.preprocessors import (
    HideTestSource,
    MarkAnswerCells,
    answer_marker,
    read_marker,
)


def _nb() -> nbformat.NotebookNode:
    answer = nbformat.v4.new_code_cell("def f(x):\n    raise NotImplementedError()")
    answer.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "q1_f"}
    tests = nbformat.v4.new_code_cell(
        "with feedback('Q1'):\n    check(f(1))\n### BEGIN HIDDEN TESTS\ncheck(f(99))\n"
        "### END HIDDEN TESTS\n")
    tests.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "q1_f_tests",
                                  "points": 1}
    tests.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue="f(99) != 1",
                                            traceback=["frame quoting check(f(99))", "..."])]
    return nbformat.v4.new_notebook(cells=[answer, tests])


def test_marker_round_trip() -> None:
    """Does read_marker find the id that answer_marker writes, and nothing in other code?"""
    assert read_marker(answer_marker("q3_scan") + "\ndef g(): pass") == "q3_scan"
    assert read_marker("# an ordinary comment\nx = 1") is None


def test_mark_answer_cells_once() -> None:
    """Is each answer cell marked once, even when the step runs twice?"""
    nb, _ = MarkAnswerCells().preprocess(_nb(), {})
    nb, _ = MarkAnswerCells().preprocess(nb, {})
    assert nb.cells[0].source.count("answer-id") == 1 and "answer-id" not in nb.cells[1].source


def test_hide_test_source_in_an_exporter() -> None:
    """Registered in an exporter (as nbgrader does), does it strip hidden tests and traces?"""
    exporter = NotebookExporter()
    exporter.register_preprocessor(HideTestSource)
    body, _ = exporter.from_notebook_node(_nb())
    assert "check(f(99))" not in body and "hidden tests ran here" in body
    assert "frame quoting" not in body and "AssertionError: f(99) != 1" in body
    assert "check(f(1))" in body
