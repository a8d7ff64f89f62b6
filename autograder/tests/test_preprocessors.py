"""Tests of autograder.grader.preprocessors: MarkAnswerCells, HideTestSource and
SummarizeQuestions."""

import nbformat
from nbconvert.exporters import NotebookExporter

from autograder.grader.preprocessors import (
    HideTestSource,
    MarkAnswerCells,
    SummarizeQuestions,
    answer_marker,
    read_marker,
)
from autograder.grader.preprocessors.summarize_questions import (
    ANCHOR_KEY,
    ANSWER_KEY,
    VERDICTS_KEY,
    split_hints,
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


def test_summarize_questions_reads_the_verdicts() -> None:
    """Does each question get its heading, points, the grader's status and message, and its
    hints (the message's own, then the ones its tests printed, each once), with its section
    starting at its heading and its answer marked?"""
    nb = _nb()
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("## Question 1: **f** of x\n\nProse."))
    nb.cells[2].outputs.insert(0, nbformat.v4.new_output(
        "stream", name="stdout", text="Q1: wrong\nHint: use jnp.\nHint: read the docs.\n"))
    nb.metadata[VERDICTS_KEY] = {"q1_f_tests": {"status": "failed", "score": 0, "points": 1,
                                                "message": "f(1) is 3, not 2. Hint: use jnp."}}
    nb, resources = SummarizeQuestions().preprocess(nb, {})
    (q,) = resources["questions"]
    assert (q.id, q.title, q.score, q.points, q.status) == ("q1_f", "Question 1: f of x", 0, 1,
                                                           "failed")
    assert q.message == "f(1) is 3, not 2." and q.hints == ["use jnp.", "read the docs."]
    assert nb.cells[0].metadata[ANCHOR_KEY] == q.anchor == "q-q1_f"
    assert nb.cells[1].metadata[ANSWER_KEY] == q.anchor and VERDICTS_KEY not in nb.metadata


def test_summarize_questions_without_verdicts_or_heading() -> None:
    """Without the grader's verdicts (a notebook it did not judge), is nbgrader's score used,
    and without a heading does the section start at the answer, named by its id?"""
    nb = _nb()
    nb.cells[1].metadata["nbgrader"]["score"] = 1.0
    _, resources = SummarizeQuestions().preprocess(nb, {})
    (q,) = resources["questions"]
    assert (q.title, q.status, q.score, q.message) == ("q1_f", "passed", 1.0, "")
    assert nb.cells[0].metadata[ANCHOR_KEY] == "q-q1_f"


def test_split_hints() -> None:
    """Are a message's ``Hint:`` parts split off, in order, and a message without one kept
    whole?"""
    assert split_hints("wrong shape. Hint: use vmap. Hint: or jnp.stack") == (
        "wrong shape.", ["use vmap.", "or jnp.stack"])
    assert split_hints("Hinted at nothing") == ("Hinted at nothing", [])


def test_heading_of_keeps_names() -> None:
    """Is a question's heading read as text, its emphasis and code marks gone but a name's
    underscores kept?"""
    from autograder.grader.preprocessors.summarize_questions import heading_of

    cell = nbformat.v4.new_markdown_cell("Intro.\n\n## Question 2: **power** `lax.fori_loop` ##")
    assert heading_of(cell) == "Question 2: power lax.fori_loop"
    assert heading_of(nbformat.v4.new_markdown_cell("No heading here.")) is None
