"""Tests of autograder.grader.feedback_page: the feedback page's exporter and template, on
graded notebooks built here (from the tiny test course's shape and from the course's real
exercises), and one page made by grading real submissions, read in headless Chromium (the
whole pipeline's pages are also tested in test_grade.py)."""

from __future__ import annotations

import copy
import html
import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.grader.feedback_page import COMPILED, TEMPLATE, TEMPLATES, FeedbackExporter
from autograder.grader.grading import _verdict_output
from autograder.grader.preprocessors import HideTestSource, SanitizeOutputs, SummarizeQuestions
from autograder.grader.preprocessors.summarize_questions import VERDICTS_KEY
from autograder.grader.question_text import math_html, question_html
from autograder.grader.release import ROOT
from autograder.kernel.tracebacks import RAISED_HERE

LONG = "x" * 400  # a message far wider than any screen, with no space to break at
EXERCISES = ROOT / "exercises"


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
             [_stream(f"Question 1: not yet. AssertionError: {message}\n{printed}\n"),
              nbformat.v4.new_output("error", ename="AssertionError", evalue=message,
                                     traceback=["frame quoting hidden_marker_1()"]),
              _verdict_output("failed", 0, 2, raised=False)])
    question(2, "set first", 3, "def set_first(x, v):\n    return x.at[0].set(v)\n",
             [_verdict_output("passed", 3, 3, raised=False)])
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
    for pre in (SummarizeQuestions, HideTestSource, SanitizeOutputs):  # the course's order
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
    heading = page.index("<h2>Question 1")
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


# ------------------------------------------------------------- an answer that raised (issue 36)

RAISING = "def double(x):\n    scale = {'two': 2}\n    return x * scale['i']\n"
HIDDEN_CASE = "a 2 x 2 array of ones"
LOOKUP_HINT = "look the key up by the name you gave it."


def raised_notebook(frames: tuple[int, int] = (1, 3), raised: bool = True) -> nbformat.NotebookNode:
    """graded_notebook's shape with question 1's answer raising ``KeyError: 'i'`` in a hidden
    case, its error naming the frames ``Cell In[n], line k`` for ``frames`` (execution count,
    line); cells numbered as a run numbers them (answer 1, tests 2, answer 3, tests 4).
    ``raised=False``: the grader's verdict is an error of its own (no exception of the answer).
    """
    nb = graded_notebook()
    answer, tests = nb.cells[2], nb.cells[3]
    answer.source = RAISING
    for count, index in enumerate((2, 3, 5, 6), start=1):
        nb.cells[index].execution_count = count
    count, line = frames
    tests.outputs = [
        _stream(f"Question 1 (hidden tests): not yet. KeyError: 'i'\nCase: {HIDDEN_CASE}.\n"
                f"Hint: {LOOKUP_HINT}\n"),
        nbformat.v4.new_output("error", ename="KeyError", evalue="'i'", traceback=[
            "In your code:", f"  \x1b[32mCell In[{count}], line {line}\x1b[0m, in double",
            "    quoted line", RAISED_HERE]),
        _verdict_output("error", 0, 2, raised=raised)] if raised else [
        _verdict_output("error", 0, 2, raised=False)]
    message = "KeyError: 'i'" if raised else "the tests did not report that they ran to the end"
    nb.metadata[VERDICTS_KEY]["q1_tests"].update(status="error", message=message, raised=raised)
    return nb


def _row(page: str, n: int) -> str:
    """The text of the table's row for question ``n``."""
    table = page[page.index('<table id="summary">'):page.index("</table>")]
    rows = re.findall(r'<tr [^>]*id="fix-.*?</tr>', table, re.S)
    return text_of(rows[n - 1])


def test_an_answer_that_raised_is_named_with_its_case_and_line() -> None:
    """Is an answer that raised labelled "Your answer raised" (never "Grader: error"), with the
    hidden case it failed and the line of its code that raised in its table row, and the
    verdict above the answer linking to that row?"""
    page = render(raised_notebook())
    row = _row(page, 1)
    assert "Your answer raised: KeyError: 'i'" in row
    assert f"Case: {HIDDEN_CASE}." in row and f"Hint: {LOOKUP_HINT}" in row
    assert "Raised at line 3 of your answer: return x * scale['i']" in row
    assert "Grader: error" not in text_of(page) and "Grader error" not in text_of(page)
    assert "Grader: your answer raised (0 of 2 points)." in text_of(page)
    assert re.search(r'<div class="verdict">.*Your answer raised: <a href="#fix-q-q1">', page)


def test_each_message_once_and_no_traceback_advice() -> None:
    """Does the page say a failure's message, case and hint once each (the table; not again
    above the answer, in the printed lines, the error or the grader's line), and nothing about
    %tb or "only your own code", which a page cannot act on?"""
    text = text_of(render(raised_notebook()))
    for said in ("KeyError: 'i'", HIDDEN_CASE, LOOKUP_HINT):
        assert text.count(said) == 1, (said, text.count(said))
    assert "%tb" not in text and "Only your own code" not in text
    text = text_of(render(graded_notebook(message="double(arange(3.0)) is off by one")))
    assert text.count("is off by one") == 1 and text.count("multiply by 2.") == 1


def test_an_unattempted_question_says_so_once_with_its_hint_as_code() -> None:
    """For a stub left as released (the grader's "not attempted", its tests having printed
    feedback's not-attempted line and the course's hint for it), does the page say "not
    attempted" once, and show the hint's backticks as code, not as backticks?"""
    from autograder.kernel.hints import hint_for

    hint = hint_for(NotImplementedError())
    nb = graded_notebook(message="not attempted")
    nb.cells[3].outputs[0] = _stream(f"Question 1: not attempted yet.\nHint: {hint}\n")
    nb.cells[3].outputs[1] = nbformat.v4.new_output(
        "error", ename="NotImplementedError", evalue="", traceback=[])
    page = render(nb)
    assert text_of(page).lower().count("not attempted") == 1
    row = _row(page, 1)
    assert "`" not in row and "Hint: Replace raise NotImplementedError()" in row
    assert "<code>raise NotImplementedError()</code>" in page


def test_a_grader_error_keeps_the_graders_label() -> None:
    """Is a question the grader could not judge (no exception of the answer: the tests did not
    report that they ran to the end) labelled as the grader's error, not the answer's?"""
    page = render(raised_notebook(raised=False))
    row = _row(page, 1)
    assert "Grader error: the tests did not report" in row
    assert "Your answer raised" not in text_of(page) and "Raised at" not in row
    assert "Grader: error (0 of 2 points)." in text_of(page)


@pytest.mark.parametrize("frames, shown", [
    ((2, 4), None),  # attack: the error names the test cell's own frame, at its hidden line
    ((3, 2), "line 2 of your answer to Question 2: set first (3 points): return x.at[0].set(v)"),
    ((9, 1), None),  # a cell no run numbered
    ((1, 30), None),  # past the cell's end
])
def test_the_offending_line_comes_from_the_learners_own_cells(frames: tuple[int, int],
                                                              shown: str | None) -> None:
    """Is the line shown where an answer raised read from the graded notebook's own cell (found
    by the execution count the error names), never from the traceback's text, and never from a
    test cell (whose hidden part a full traceback could name), while a frame in another
    answer (the twin) is shown with that question's name?"""
    page = render(raised_notebook(frames))
    row = _row(page, 1)
    assert "quoted line" not in page and "hidden_marker" not in page
    if shown is None:
        assert "Raised at" not in row
    else:
        assert f"Raised at {shown}" in row


# ------------------------------------------------------ the course's question text (issue 36)

def exercise(stem: str) -> nbformat.NotebookNode:
    """The course's released exercise ``stem`` as grading leaves it: the stubs as answers and
    every question judged passed."""
    nb = nbformat.read(EXERCISES / f"{stem}.ipynb", as_version=4)
    verdicts = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            points = meta.get("points", 0)
            cell.outputs = [_verdict_output("passed", points, points, raised=False)]
            verdicts[meta["grade_id"]] = {"status": "passed", "score": points,
                                          "points": points, "message": ""}
    nb.metadata[VERDICTS_KEY] = verdicts
    return nb


def test_question_text_is_escaped_once() -> None:
    """Does question text that holds <, > and -> (02: ``<float32 scalar>``, ``x -> 0.9 *
    tanh(x) + 0.1``, ``n >= 0``) reach the page escaped exactly once, so that it reads as
    written, with no entity showing?"""
    page = render(exercise("03_pure_functions"))
    text = text_of(page)
    for written in ('{"total": <float32 scalar>, "count": <int32 scalar>}',
                    "x -> 0.9 * tanh(x) + 0.1", "n >= 0"):
        assert written in text, written
    assert "&lt;float32 scalar&gt;" in page
    assert not re.search(r"&amp;(lt|gt|amp|quot);", page)
    assert not re.search(r"&(lt|gt|amp);", text)


def test_question_math_is_mathml() -> None:
    """Is the math of a real question (06: inline formulas, display formulas, a ``cases``
    environment with ``<`` and ``\\\\[4pt]``) MathML on the page, with no TeX or ``$`` left in
    the question text, and ``<`` in a formula written once escaped?"""
    page = render(exercise("09_control_flow"))
    assert page.count("<math") >= 15
    assert "$" not in text_of(re.sub(r"<math.*?</math>", "", page, flags=re.S))
    assert "\\begin" not in page and "\\frac" not in page and "[4pt]" not in page
    assert '<math display="block">' in page and "<mtable>" in page
    assert "<mo>&lt;</mo>" in page and '<span class="o">&lt;</span>' in page
    assert "while steps < max_steps" in text_of(page)


@pytest.mark.parametrize("source, absent", [
    ("<script>alert(1)</script>", "<script"),
    ("<img src=x onerror=alert(1)>", "<img"),
    ("[click](javascript:alert(1))", 'href="javascript'),
    ("$\\href{javascript:alert(1)}{x}$", "javascript:"),
    ("$\\text{</math><script>alert(1)</script>}$", "<script"),
    ("$\\text{<img src=x onerror=alert(1)>}$", "<img"),
    ("$$\\style{color:red}{x}$$", "style="),
])
def test_question_markdown_and_math_are_inert(source: str, absent: str) -> None:
    """Does Markdown or math holding HTML, a script, a javascript: link or an attribute that
    MathML should not carry come out with none of it live (raw HTML off; MathML written element
    by element from an allow-list, its text escaped)?"""
    out = question_html(source)
    assert absent not in out, out
    assert not re.search(r"<[^>]+\son\w+=", out) and "href=" not in out and "style=" not in out


@pytest.mark.parametrize("source, shown", [
    ("$x < 1$ and $a > 0$", "<mo>&lt;</mo>"),
    ("`a < b` and a -> b", "<code>a &lt; b</code> and a -&gt; b"),
    ("$\\text{a&b}$", "<mtext>a&amp;b</mtext>"),
    ("$$\\frac{1}{2}$$", "<mfrac><mrow><mn>1</mn></mrow><mrow><mn>2</mn></mrow></mfrac>"),
    ("[chapter 06](../notebooks/06_jit.ipynb)",
     '<a href="../notebooks/06_jit.ipynb">chapter 06</a>'),
])
def test_honest_question_markup_keeps_its_meaning(source: str, shown: str) -> None:
    """Twin of the attacks: do <, > and & in text, code and math show once escaped, and
    ordinary math keep its structure?"""
    assert shown in question_html(source)


def test_tex_that_cannot_be_read_shows_as_written() -> None:
    """Is a formula latex2mathml cannot read shown as its TeX, escaped, rather than lost?"""
    assert math_html("x < y^", False) == '<code class="tex">x &lt; y^</code>'


def test_a_submissions_markdown_never_reaches_the_page() -> None:
    """Is the question text on the page the course's, whatever a submission's Markdown says:
    a cell it added (with a script, a javascript: link and math calling one) and a question
    it edited are not graded (rebuild keeps the released cells), so neither is on the page,
    while the learner's answer is?"""
    from autograder.grader.rebuild import rebuild

    released = nbformat.read(EXERCISES / "03_pure_functions.ipynb", as_version=4)
    submission = copy.deepcopy(released)
    attack = ("<script>alert(1)</script> [x](javascript:alert(2)) "
              "$\\href{javascript:alert(3)}{y}$ EDITED-BY-LEARNER")
    submission.cells.insert(4, nbformat.v4.new_markdown_cell(attack))
    submission.cells[3].source += "\n\nEDITED-BY-LEARNER"
    answer = next(c for c in submission.cells if c.cell_type == "code"
                  and c.metadata.get("nbgrader", {}).get("solution"))
    answer.source = answer.source.replace("raise NotImplementedError()", "return 'mine'")
    nb = rebuild(released, submission).notebook
    nb.metadata[VERDICTS_KEY] = exercise("03_pure_functions").metadata[VERDICTS_KEY]
    page = render(nb)
    assert "EDITED-BY-LEARNER" not in page and "javascript:" not in page
    assert "alert(" not in page and "mine" in page


def test_what_an_answer_printed_stays_text() -> None:
    """Do an answer's outputs stay inert (a ``<script>`` printed, Markdown displayed with a
    script and ``$\\href{javascript:...}$`` math: no tag, no link, no MathML made of them),
    while an honest answer's ``a < b`` printed shows as written, escaped once?"""
    nb = graded_notebook()
    answer = nb.cells[5]  # question 2's answer, which passed
    answer.outputs = [
        _stream("<script>alert(1)</script>\nhonest: a < b\n"),
        nbformat.v4.new_output("display_data", data={
            "text/markdown": "$\\href{javascript:alert(2)}{x}$ <script>alert(3)</script>",
            "text/plain": "<Markdown>"})]
    page = render(nb)
    assert "<script" not in page.lower() and "javascript:alert" not in page.replace(
        "$\\href{javascript:alert(2)}{x}$", "")
    assert page.count("<math") == 1  # the title's $x^2$ only: none from the output
    assert "honest: a &lt; b" in page and "honest: a < b" in text_of(page)


# ----------------------------------------------------- a real page in a real browser (issue 36)

EMA_RAISES = '''def ema(xs, alpha):
    """Exponential moving average of xs along axis 0; returns every step's average."""
    (steps,) = xs.shape  # one feature per step assumed
    def step(s, x):
        s = alpha * x + (1 - alpha) * s
        return s, s

    _, averages = lax.scan(step, xs[0], xs)
    return averages
'''


@pytest.fixture(scope="module")
def real_pages(tmp_path_factory) -> dict[str, Path]:
    """Feedback pages made by grading real submissions: 06 with question 1's answer raising on
    its hidden case of several features per step (the others the reference answers), and 02
    (the reference answers), by assignment."""
    from autograder.__main__ import main

    root = tmp_path_factory.mktemp("pages")
    folder = root / "subs" / "ada"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / "03_pure_functions.ipynb", folder)
    nb = nbformat.read(ROOT / "solutions" / "09_control_flow.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "q1_ema_scan":
            cell.source = EMA_RAISES
    nbformat.write(nb, folder / "09_control_flow.ipynb")
    out = root / "out"
    assert main(["grade", str(root / "subs"), "--out", str(out), "--jobs", "2"]) == 0
    return {stem: out / "ada" / stem / "feedback.html"
            for stem in ("03_pure_functions", "09_control_flow")}


@pytest.mark.slow
@pytest.mark.browser
def test_real_page_in_chromium_shows_math_text_and_one_message(real_pages: dict[str, Path],
                                                              browser) -> None:
    """Read in headless Chromium, does a real feedback page show its questions' math as
    MathML that the browser lays out (a fraction's numerator above its denominator), the
    question's ``<`` and 02's ``<float32 scalar>``, ``->`` and ``>=`` as written with no
    entity visible, the raising answer as "Your answer raised" with its case and offending
    line in its table row, and the answer's message once on the page?"""
    from selenium.webdriver.common.by import By

    result = json.loads((real_pages["09_control_flow"].parent / "result.json").read_text())
    q1 = next(q for q in result["questions"] if q["id"] == "q1_ema_scan")
    assert (q1["status"], q1["score"]) == ("error", 0), q1
    browser.get(real_pages["09_control_flow"].as_uri())
    maths = browser.find_elements(By.TAG_NAME, "math")
    assert len(maths) >= 15
    namespace = browser.execute_script("return arguments[0].namespaceURI", maths[0])
    assert namespace == "http://www.w3.org/1998/Math/MathML"
    fraction = browser.find_element(By.CSS_SELECTOR, "math mfrac")
    top, bottom = browser.execute_script(
        "const [n, d] = arguments[0].children; return [n.getBoundingClientRect().bottom, "
        "d.getBoundingClientRect().top]", fraction)
    assert top <= bottom + 1, (top, bottom)  # laid out as a fraction, not in a line
    alphas = [m for m in maths if "α" in (m.get_attribute("textContent") or "")]
    assert alphas and all(m.size["height"] > 0 for m in alphas)
    visible = browser.find_element(By.TAG_NAME, "body").text
    assert not re.search(r"&(lt|gt|amp|quot);", visible)
    assert "while steps < max_steps" in visible
    row = browser.find_element(By.CSS_SELECTOR, "#fix-q-q1_ema_scan").text
    assert "Your answer raised: ValueError" in row and "Grader: error" not in visible
    assert "Case: several features per step" in row
    assert "(steps,) = xs.shape" in row and "Raised at line 3 of your answer" in row
    everything = browser.execute_script("return document.body.textContent")
    assert everything.count(q1["message"].splitlines()[0]) == 1
    assert everything.count("Case: several features per step") == 1
    assert "%tb" not in everything and "Only your own code" not in everything

    browser.get(real_pages["03_pure_functions"].as_uri())
    visible = browser.find_element(By.TAG_NAME, "body").text
    for written in ('{"total": <float32 scalar>, "count": <int32 scalar>}',
                    "x -> 0.9 * tanh(x) + 0.1", "n >= 0"):
        assert written in visible, written
    assert not re.search(r"&(lt|gt|amp|quot);", visible)
