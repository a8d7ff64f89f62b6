"""Tests of autograder.grader.feedback_page: the feedback page's exporter and template, on a
graded notebook built here (the whole pipeline's pages are tested in test_grade.py)."""

from __future__ import annotations

import copy
import html
import re

import nbformat
import pytest
from nbconvert.preprocessors.sanitize import SanitizeHTML

from autograder.grader.feedback_page import COMPILED, TEMPLATE, TEMPLATES, FeedbackExporter
from autograder.grader.preprocessors import HideTestSource, SummarizeQuestions
from autograder.grader.preprocessors.summarize_questions import VERDICTS_KEY

LONG = "x" * 400  # a message far wider than any screen, with no space to break at


def _stream(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def graded_notebook(message: str = "double(arange(3.0)) has the wrong values " + LONG,
                    printed: str = "Hint: multiply by 2.") -> nbformat.NotebookNode:
    """A two-question notebook as grading leaves it: question 1 failed (``message``, its tests
    having printed ``printed``), question 2 passed, the grader's verdicts in its metadata."""
    cells = [nbformat.v4.new_markdown_cell("# 00 · A tiny exercise\n\nSome prose, $x^2$.")]

    def question(n: int, name: str, points: int, answer: str, outputs: list) -> None:
        cells.append(nbformat.v4.new_markdown_cell(f"## Question {n}: {name} ({points} points)"))
        cell = nbformat.v4.new_code_cell(answer)
        cell.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": f"q{n}"}
        cells.append(cell)
        tests = nbformat.v4.new_code_cell(
            f"with feedback('Question {n}'):\n    check(q{n}())\n### BEGIN HIDDEN TESTS\n"
            f"check(hidden_marker_{n}())\n### END HIDDEN TESTS\n")
        tests.metadata["nbgrader"] = {"solution": False, "grade": True, "points": points,
                                      "grade_id": f"q{n}_tests"}
        tests.outputs = outputs
        cells.append(tests)

    question(1, "double", 2, "def double(x):\n    return x\n",
             [_stream(f"Question 1: {message}\n{printed}\n"),
              nbformat.v4.new_output("error", ename="AssertionError", evalue=message,
                                     traceback=["frame quoting hidden_marker_1()"]),
              _stream(f"Grader: failed (0 of 2 points). {message}\n")])
    question(2, "set first", 3, "def set_first(x, v):\n    return x.at[0].set(v)\n",
             [_stream("Grader: passed (3 of 3 points).\n")])
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata[VERDICTS_KEY] = {
        "q1_tests": {"question": "q1", "status": "failed", "score": 0, "points": 2,
                     "message": message},
        "q2_tests": {"question": "q2", "status": "passed", "score": 3, "points": 3,
                     "message": ""}}
    return nb


def render(nb: nbformat.NotebookNode) -> str:
    """The feedback page of ``nb``, made as the course's nbgrader config makes it (GetGrades'
    part, which reads the gradebook, given as its resources)."""
    exporter = FeedbackExporter(template_name=TEMPLATE, extra_template_basedirs=[str(TEMPLATES)])
    for pre in (HideTestSource, SummarizeQuestions, SanitizeHTML):
        exporter.register_preprocessor(pre, enabled=True)
    resources = {"nbgrader": {"notebook": "00_tiny", "score": 3.0, "max_score": 5.0,
                              "late_penalty": 0}}
    page, _ = exporter.from_notebook_node(nb, resources=resources)
    return page


def text_of(page: str) -> str:
    """The page's text, without tags."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_table_and_messages_come_before_the_first_answer() -> None:
    """Does the page open with the table of questions (name, points, the failed check's message
    and hint), all of it before the first answer's code?"""
    page = render(graded_notebook())
    first_answer = page.index("def</span>")  # the first code shown is question 1's answer
    table = page.index('<table id="summary">')
    assert table < first_answer and page.index("<body") < table
    row = page[table:page.index("</table>")]
    assert "Question 1: double (2 points)" in row and "0 / 2" in row
    assert "has the wrong values" in row and "Hint: multiply by 2." in row
    assert "Question 2: set first (3 points)" in row and "Passed" in row
    assert page.index("has the wrong values") < first_answer


def test_links_resolve_to_anchors_in_the_page() -> None:
    """Does every in-page link (table to question, back to the table) name an id that the page
    has, with each question's section starting at its heading?"""
    page = render(graded_notebook())
    links = set(re.findall(r'href="#([^"]+)"', page))
    ids = set(re.findall(r'id="([^"]+)"', page))
    assert {"q-q1", "q-q2", "summary"} <= links
    assert links <= ids, links - ids
    heading = page.index('<h2 id="Question-1')
    assert page.rindex('id="q-q1"', 0, heading) > page.index("</table>")


def test_long_lines_wrap() -> None:
    """Is every <pre> (and the table's messages) wrapped by the page's style sheet, so that a
    400-character line needs no sideways scrolling, with no inline style to undo it?"""
    page = render(graded_notebook())
    style = page[page.index("<style>"):page.index("</style>")]
    rule = re.search(r"(?:^|\})([^{}]*\bpre\b[^{}]*)\{([^}]*)\}", style)
    assert rule and "white-space:pre-wrap" in rule.group(2)
    assert "overflow-wrap:anywhere" in rule.group(2) and ".msg" in rule.group(1)
    assert not re.search(r"<pre[^>]*style=", page)
    assert LONG in page  # the whole message is there, wrapped, not cut


def test_test_code_is_folded_and_hidden_tests_absent() -> None:
    """Is each test cell's code inside a closed <details>, the hidden tests and the frames that
    quote them absent, and the tests' output left open?"""
    page = render(graded_notebook())
    folded = re.findall(r"<details class=\"tests\">(.*?)</details>", page, re.S)
    assert len(folded) == 2 and all("feedback" in f for f in folded)
    assert "<details open" not in page
    assert "hidden_marker" not in page and "hidden tests ran here" in text_of(page)
    assert "Grader: failed (0 of 2 points)." in page.split("</details>")[0] + page


def test_page_is_small_and_runs_nothing() -> None:
    """Is the page small (no Bootstrap, no MathJax: under 12 kB for two questions), with no
    script at all and a policy that forbids scripts and remote loads?"""
    page = render(graded_notebook())
    assert len(page.encode()) < 12_000, len(page.encode())
    assert "<script" not in page.lower() and "bootstrap" not in page.lower()
    assert "default-src 'none'" in page


@pytest.mark.parametrize("where", ["message", "hint"])
def test_markup_in_a_message_or_hint_is_text(where: str) -> None:
    """Does HTML in a failed check's message, or in a hint the tests printed (both the
    learner's to shape), reach the table and the verdict as escaped text, never as a tag?"""
    attack = '<script>document.title="OWNED"</script><img src=x onerror=alert(1)>'
    nb = (graded_notebook(message=attack) if where == "message"
          else graded_notebook(printed=f"Hint: {attack}"))
    page = render(nb)
    assert "<script>document.title" not in page
    assert not re.search(r"<img[^>]*onerror", page)
    table = page[page.index('<table id="summary">'):page.index("</table>")]
    assert html.escape(attack, quote=False) in table.replace("&quot;", '"')


def test_marks_in_a_submission_are_replaced() -> None:
    """Does an anchor or answer mark that a submission put in its cells' metadata (an id
    with markup, say) give way to the preprocessor's own?"""
    nb = graded_notebook()
    nb.cells[0].metadata["learn_jax_anchor"] = '"><script>alert(1)</script>'
    nb.cells[2].metadata["learn_jax_answer"] = "q-q2"
    page = render(nb)
    assert "<script>alert" not in page and page.count('class="verdict') == 2


def test_compiled_templates_are_reused() -> None:
    """Is a second page rendered from the compiled templates kept by the first (none compiled
    again), and the same page?"""
    nb = graded_notebook()
    COMPILED.clear()
    first = render(copy.deepcopy(nb))
    kept = {key: code for key, (_, code) in COMPILED._code.items()}
    assert kept
    second = render(copy.deepcopy(nb))
    assert {key: code for key, (_, code) in COMPILED._code.items()} == kept
    assert first == second
