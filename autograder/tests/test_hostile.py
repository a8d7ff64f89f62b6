"""A corpus of hostile submissions, graded in one batch with honest ones mixed in.

Each case is the tiny course's correct submission with question 1's answer replaced by the
source in ``ANSWERS`` (question 2 stays correct and is worth 3 of the 5 points), or a broken
file from ``BAD_FILES``. The cases are written to a temporary folder, one folder per case
named for it, at test time: several need paths of this machine (the repository's
``solutions/``, a canary file), which must not be committed.

Attacks on the grader's own process (a notebook that stalls its rebuild) and on timing tests
(an answer that remembers its results) are at the end, each beside its honest twin.

Isolation cases run strictly when ``LEARN_JAX_REQUIRE_SANDBOX=1`` (as in CI); elsewhere, when
bubblewrap does not work, they are skipped with the reason.
"""

from __future__ import annotations

import copy
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import nbformat
import pytest

from autograder.__main__ import main
from autograder.core.notebook import nbgrader_meta
from autograder.grader.course import isolation
from autograder.grader.release import ROOT
from autograder.kernel import timing
from autograder.tests.conftest import FIXTURES

CORRECT_Q1 = "def double(x):\n    return 2 * x\n"
WRONG_Q1 = "def double(x):\n    return x\n"
# case -> (answer to question 1, expected score, expected q1 status); q2 is correct (3 points)
ANSWERS: dict[str, tuple[str, float, str]] = {
    "input-transformer": (CORRECT_Q1 + "get_ipython().input_transformers_post.append("
                          "lambda lines: lines)\n", 3, "failed"),
    "custom-exception-handler": (WRONG_Q1 + "get_ipython().set_custom_exc((Exception,), "
                                 "lambda *a, **k: None)\n", 3, "failed"),
    "silenced-tracebacks": (WRONG_Q1 + "import sys\nsys.excepthook = lambda *a: None\n",
                            3, "failed"),
    "xmode-magic": (WRONG_Q1 + "%xmode Minimal\n", 3, "failed"),
    "patch-time": (CORRECT_Q1 + "import time\ntime.perf_counter = lambda: 0.0\n", 3, "failed"),
    "patch-jit": (WRONG_Q1 + "import jax\njax.jit = lambda f, **k: f\n", 3, "failed"),
    "patch-builtins": (WRONG_Q1 + "import builtins\nbuiltins.AssertionError = type("
                       "'X', (BaseException,), {})\n", 3, "failed"),
    "patch-check-helper": (WRONG_Q1 + "import autograder.kernel.checks\nautograder.compare."
                           "check_array = lambda *a, **k: None\n", 3, "failed"),
    "patch-helper-by-setattr": (WRONG_Q1 + "setattr(check_array, '__code__', "
                                "(lambda *a, **k: None).__code__)\n", 3, "failed"),
    "sys-exit": (WRONG_Q1 + "import sys\nsys.exit(0)\n", 3, "failed"),
    "os-exit": (WRONG_Q1 + "import os\nos._exit(0)\n", 3, "failed"),
    "kill-own-kernel": (WRONG_Q1 + "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
                        3, "failed"),
    "kill-parent": (WRONG_Q1 + "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
                    3, "failed"),
    "fake-result-file": (WRONG_Q1 + "open('result.json', 'w').write('{\"score\": 5}')\n",
                         3, "failed"),
    "network": (CORRECT_Q1 + "import socket\nsocket.create_connection(('1.1.1.1', 80))\n",
                3, "failed"),
    "fork-bomb": (CORRECT_Q1 + "import os\nwhile True:\n    os.fork()\n", 3, "failed"),
    "spoofed-proof": (WRONG_Q1 + "display({'application/x-learn-jax-proof': "
                      "'q1_double_tests 0123456789abcdef0123456789abcdef'}, raw=True)\n",
                      3, "failed"),
    "infinite-loop": ("while True:\n    pass\n" + CORRECT_Q1, 3, "error"),
    "huge-output": (CORRECT_Q1 + "print('x' * 200_000_000)\n", 5, "passed"),
    # Small outputs of the proof's type were once exempt from the budget, however many.
    "proof-flood": (CORRECT_Q1 + "for _ in range(5_000):\n    display({'application/x-learn-"
                    "jax-proof': 'q1_double_tests ' + 'f' * 200}, raw=True)\n", 5, "passed"),
    # Code that cannot be traced passes a jitted test only with jit turned off (its twin, the
    # same answer without that line, fails the same way: 3 points).
    "disable-jit": ("import jax\njax.config.update('jax_disable_jit', True)\n\n@jax.jit\n"
                    "def double(x):\n    return 2 * x if float(x.sum()) > -1e9 else x\n",
                    3, "error"),
    # Honest: a JAX UserWarning on stderr while the tests trace the answer.
    "jax-warning": ("def double(x):\n    return 2 * jnp.asarray(x, dtype=jnp.float64)\n",
                    5, "passed"),
    # Check results have a budget of their own: a chatty answer printing past the 100 kB output
    # budget while the tests run keeps its results and points (the twin of the flood below) ...
    "chatty-during-tests": ("def double(x):\n    print('x' * 150_000)\n    return 2 * x\n",
                            5, "passed"),
    # ... and 6 MB of made-up results published while the tests run gain nothing.
    "evidence-flood": ("def double(x):\n    for _ in range(300):\n        display({'application/"
                       "vnd.learn-jax.evidence+json': {'check': 'array', 'name': 'double(arange("
                       "3.0))', 'got': {'none': True}, 'pad': 'y' * 20_000}}, raw=True)\n"
                       "    return x\n", 3, "failed"),
    # IPython's history, printed while the tests run: test cells never enter it, so the
    # hidden tests (their marker) reach neither the page nor result.json.
    "print-history": ("def double(x):\n    print('\\n'.join(In), _ih[-1:], _i, _ii)\n"
                      "    return 2 * x\n", 5, "passed"),
    # Markup in a message: the answer raises with HTML and Markdown in its text, which the
    # item analysis of summary.md quotes (the job summary in CI): it must show as text.
    "markup-in-message": ("def double(x):\n    raise ValueError('<img src=x onerror=alert(1)> "
                          "![p](https://example.invalid/p.png) [click](https://example.invalid)"
                          "')\n", 3, "error"),
    # Markup in a hint: the answer prints a line that the feedback page's table reads as a
    # hint of its tests; it must show as text there.
    "markup-in-hint": ("def double(x):\n    print('Hint: <script>document.title = \"OWNED\""
                       "</script><img src=x onerror=alert(1)>')\n    return x\n", 3, "failed"),
    # Stored script: the answer is right, the page must not run what it printed.
    "script-in-output": (CORRECT_Q1 + "display({'text/html': '<b>bold</b><script>"
                         "document.title = \"OWNED\"</script><img src=x onerror=alert(1)>'}, "
                         "raw=True)\n", 5, "passed"),
}
# Cases that need the sandbox to be defended (the code is not screened out).
SANDBOXED: dict[str, tuple[str, float, str]] = {
    # {solution} and {canary} are filled in at test time.
    "read-solutions-absolute": ("try:\n    SECRET = open({solution!r}).read()\nexcept OSError:"
                                "\n    SECRET = None\ndef double(x):\n    return 2 * x if "
                                "SECRET else x\n", 3, "failed"),
    "read-solutions-relative": ("try:\n    SECRET = open('../../../../solutions/06_jit.ipynb')"
                                ".read()\nexcept OSError:\n    SECRET = None\ndef double(x):\n"
                                "    return 2 * x if SECRET else x\n", 3, "failed"),
    "write-outside-scratch": ("try:\n    open({canary!r}, 'w').write('owned')\nexcept OSError:"
                              "\n    pass\n" + CORRECT_Q1, 5, "passed"),
    "memory-hog": ("hog = bytearray(8 * 2**30)\n" + CORRECT_Q1, 3, "failed"),
    # The kernel's socket folder is the one host folder it sees: sealed once the kernel is up.
    "fill-runtime-dir": ("try:\n    ARGS = open('/proc/self/cmdline').read().split(chr(0))\n"
                         "    HOME = ARGS[ARGS.index('-f') + 1].rsplit('/', 1)[0]\n"
                         "    open(HOME + '/filler', 'w').write('x' * 1_000_000)\n"
                         "    FILLED = True\nexcept (OSError, ValueError):\n    FILLED = False\n"
                         "def double(x):\n    return 2 * x if FILLED else x\n", 3, "failed"),
}
SLOW = "while True:\n    pass\n"  # three such cells run into the notebook's deadline
BAD_FILES = {  # case -> (file name, expected message fragment)
    "huge-file": ("00_tiny.ipynb", "MB are not graded"),
    "format-v2": ("00_tiny.ipynb", "format version 2 is not supported"),
    "unknown-assignment": ("99_nope.ipynb", "unknown assignment '99_nope'"),
}
# The grader's own handling of files and people: case -> expected message fragment (invalid).
STRUCTURE = {
    "linked-solution": "symbolic link",  # the file links to the course's source
    "linked-folder": "symbolic link",  # the student's folder links to another student's
    "two-files": "2 files hold work for assignment 00_tiny",  # also 00_tiny-honest-00-correct.ipynb
    "too-many-cells": "more than the exercise's",
}
NESTED = "nested-identity"
# A student folder named like a spreadsheet formula, holding an honest correct submission:
# graded under a safe name (5 points), with no cell of any CSV starting a formula.
FORMULA_FOLDER = "=1+2"  # holds honest-00-correct/00_tiny.ipynb: a stub, graded as its own
HONEST = {"correct": 5, "partial": 3, "empty-stub": 0}
HONEST_COPIES = 50 - len(ANSWERS) - len(SANDBOXED) - len(BAD_FILES) - len(STRUCTURE) - 4


def _with_q1(source: str) -> nbformat.NotebookNode:
    nb = nbformat.read(FIXTURES / "submissions" / "correct.ipynb", as_version=4)
    for cell in nb.cells:
        if nbgrader_meta(cell).get("grade_id") == "q1_double":
            cell.source = f"# answer-id: q1_double\n{source}"
    return nb


def _write(folder: Path, nb: nbformat.NotebookNode, name: str = "00_tiny.ipynb") -> None:
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / name)


def _corpus(root: Path, canary: Path) -> None:
    solution = str(ROOT / "solutions" / "06_jit.ipynb")
    for case, (source, _, _) in ANSWERS.items():
        _write(root / case, _with_q1(source))
    for case, (source, _, _) in SANDBOXED.items():
        _write(root / case, _with_q1(source.format(solution=solution, canary=str(canary))))
    slow = _with_q1(CORRECT_Q1)
    at = next(i for i, c in enumerate(slow.cells) if "q1_double" in c.source)
    slow.cells[at + 1:at + 1] = [nbformat.v4.new_code_cell(SLOW) for _ in range(3)]
    _write(root / "slow-cells", slow)
    (root / "huge-file").mkdir()
    text = nbformat.writes(_with_q1(CORRECT_Q1))
    (root / "huge-file" / "00_tiny.ipynb").write_text(
        text[:-2] + ', "padding": "' + "x" * (60 * 2**20) + '"}\n')
    (root / "format-v2").mkdir()
    (root / "format-v2" / "00_tiny.ipynb").write_text(json.dumps(
        {"nbformat": 2, "nbformat_minor": 0, "metadata": {}, "worksheets": []}))
    dup = _with_q1(CORRECT_Q1)
    q1 = next(c for c in dup.cells if nbgrader_meta(c).get("grade_id") == "q1_double")
    other = copy.deepcopy(q1)
    other.source = WRONG_Q1
    other.id = "duplicate"
    dup.cells.append(other)
    _write(root / "duplicate-grade-ids", dup)
    _write(root / "unknown-assignment", _with_q1(CORRECT_Q1), "99_nope.ipynb")
    (root / "linked-solution").mkdir()
    (root / "linked-solution" / "00_tiny.ipynb").symlink_to(FIXTURES / "course" / "00_tiny.ipynb")
    (root / "linked-folder").symlink_to(root / "honest-00-correct", target_is_directory=True)
    _write(root / "two-files", _with_q1(CORRECT_Q1))
    nbformat.write(_with_q1("raise NotImplementedError()\n"),
                   root / "two-files" / "00_tiny-honest-00-correct.ipynb")
    many = _with_q1(CORRECT_Q1)
    many.cells += [nbformat.v4.new_code_cell("") for _ in range(2_050)]
    _write(root / "too-many-cells", many)
    _write(root / NESTED / "honest-00-correct", _with_q1("raise NotImplementedError()\n"))
    _write(root / FORMULA_FOLDER, _with_q1(CORRECT_Q1))
    kinds = list(HONEST)
    for i in range(HONEST_COPIES):
        kind = kinds[i % len(kinds)]
        nb = nbformat.read(FIXTURES / "submissions" / f"{kind}.ipynb", as_version=4)
        _write(root / f"honest-{i:02d}-{kind}", nb)


def _grade(paths: list[Path], out: Path, *extra: str) -> None:
    status = main(["grade", *map(str, paths), "--source", str(FIXTURES / "course"),
                   "--out", str(out), "--cell-timeout", "10", "--notebook-timeout", "30",
                   *extra])
    assert status == 0


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> dict:
    """Grade the corpus and honest copies (50 submissions) together, with two jobs."""
    if isolation() != "bubblewrap" and os.environ.get("LEARN_JAX_REQUIRE_SANDBOX") == "1":
        pytest.fail("LEARN_JAX_REQUIRE_SANDBOX=1 but bubblewrap does not work here")
    root = tmp_path_factory.mktemp("hostile")
    canary = root / "canary.txt"
    canary.write_text("untouched")
    _corpus(root / "subs", canary)
    out = root / "out"
    _grade([root / "subs"], out, "--jobs", "2", "--course", str(root / "course"))
    alone = root / "alone"  # the honest kinds with no hostile neighbour: one job, in turn
    for kind in HONEST:
        _write(root / "single" / kind, nbformat.read(
            FIXTURES / "submissions" / f"{kind}.ipynb", as_version=4))
    _grade([root / "single"], alone)
    results = {p.parent.parent.name: json.loads(p.read_text())
               for p in out.glob("*/*/result.json")}
    return {"root": root, "out": out, "results": results, "canary": canary, "alone": alone}


@pytest.mark.slow
def test_batch_completes_with_every_submission(batch: dict) -> None:
    """Does one batch of 50 students (51 files, hostile ones among them) give every student a
    result, the two files of one student being one submission that needs attention?"""
    assert len(batch["results"]) == 50
    summary = (batch["out"] / "summary.md").read_text()
    assert "50 submission(s)" in summary


@pytest.mark.slow
@pytest.mark.parametrize("case", STRUCTURE)
def test_links_clashes_and_cell_floods_are_invalid(batch: dict, case: str) -> None:
    """Is a linked file or folder, two files for one assignment, or a flood of cells `invalid`
    with a message, with no feedback page and nothing of what a link points to shown?"""
    r = batch["results"][case]
    assert r["status"] == "invalid" and STRUCTURE[case] in r["message"], r["message"]
    folder = next((batch["out"] / case).iterdir())
    assert not (folder / "feedback.html").exists()
    assert "BEGIN SOLUTION" not in (folder / "result.json").read_text()


@pytest.mark.slow
def test_identity_comes_from_the_folder(batch: dict) -> None:
    """Does a stub filed under another student's name inside the attacker's folder count as
    the attacker's, leaving the victim's result and gradebook row as they were?"""
    assert batch["results"][NESTED]["score"] == 3  # question 2 is correct, question 1 a stub
    assert (batch["results"]["honest-00-correct"]["status"],
            batch["results"]["honest-00-correct"]["score"]) == ("graded", 5)


@pytest.mark.slow
def test_feedback_runs_nothing_a_submission_printed(batch: dict) -> None:
    """Does feedback.html keep harmless HTML but no script and no event handler from an
    answer's output, while the answer keeps its points?"""
    page = (batch["out"] / "script-in-output" / "00_tiny" / "feedback.html").read_text()
    assert "<b>bold</b>" in page
    assert "<script>document.title" not in page
    assert not re.search(r"<img[^>]*onerror", page)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["markup-in-message", "markup-in-hint"])
def test_feedback_table_shows_markup_as_text(batch: dict, case: str) -> None:
    """Does markup in a failed check's message, or in a hint line the answer printed while
    the tests ran, reach the feedback page's table of what to fix as escaped text, with no
    tag or event handler of it anywhere in the page?"""
    page = (batch["out"] / case / "00_tiny" / "feedback.html").read_text()
    table = page[page.index('<table id="summary">'):page.index("</table>")]
    assert "&lt;img src=x onerror=alert(1)&gt;" in table
    assert not re.search(r"<img[^>]*onerror", page) and "<script>document" not in page


@pytest.mark.slow
def test_reports_are_inert(batch: dict) -> None:
    """Does an answer's message full of HTML and Markdown reach summary.md as text (no tag,
    no image or link), and does a student folder named ``=1+2`` get a safe name, its 5 points,
    and no CSV cell that a spreadsheet would read as a formula?"""
    import csv

    armed = batch["results"]["markup-in-message"]["questions"][0]["message"]
    assert "<img src=x onerror=alert(1)>" in armed  # the attack reached the result as it was
    summary = (batch["out"] / "summary.md").read_text()
    assert "<img" not in summary and not re.search(r"(?<!\\)\[(p|click)\]", summary)
    formula = [r for r in batch["results"].values()
               if Path(r["submission"]).parent.name == FORMULA_FOLDER]
    assert len(formula) == 1 and (formula[0]["status"], formula[0]["score"]) == ("graded", 5)
    assert formula[0]["student"].startswith("1_2-")
    with open(batch["out"] / "grades.csv", newline="") as fh:
        cells = [cell for row in csv.reader(fh) for cell in row]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))]


@pytest.mark.slow
def test_evidence_cut_by_its_budget_is_said(batch: dict) -> None:
    """Does the evidence flood (results past the 4 MB evidence budget, dropped) say so in its
    question's message, while the chatty honest twin's message says nothing of it?"""
    flood = batch["results"]["evidence-flood"]["questions"][0]
    assert "check result(s) of this test cell were dropped" in flood["message"], flood
    assert "dropped" not in batch["results"]["chatty-during-tests"]["questions"][0]["message"]


@pytest.mark.slow
def test_history_shows_no_hidden_tests(batch: dict) -> None:
    """Does an answer that prints IPython's input history (``In``, ``_ih``, ``_i``) while the
    tests run show none of the hidden tests in feedback.html or result.json, and keep its
    points?"""
    folder = batch["out"] / "print-history" / "00_tiny"
    for name in ("feedback.html", "result.json"):
        text = (folder / name).read_text()
        assert "hidden-marker-q1" not in text and "double(ones((2, 2)))" not in text, name
    assert batch["results"]["print-history"]["score"] == 5


@pytest.mark.slow
@pytest.mark.parametrize("case", ANSWERS)
def test_tampering_does_not_raise_the_score(batch: dict, case: str) -> None:
    """Does each tampering answer end with its expected score, status and a message?"""
    r = batch["results"][case]
    _, score, q1_status = ANSWERS[case]
    assert r["status"] == "graded", r["message"]
    assert r["score"] == score, r["questions"]
    q1 = next(q for q in r["questions"] if q["id"] == "q1_double")
    assert q1["status"] == q1_status and (q1_status == "passed" or q1["message"]), q1


@pytest.mark.slow
def test_screened_answers_say_why(batch: dict) -> None:
    """Is a screened answer's message the reason it was not run?"""
    q1 = batch["results"]["sys-exit"]["questions"][0]
    assert "not run" in q1["message"] and "import sys" in q1["message"]


@pytest.mark.slow
def test_limits_end_in_timeout_or_error_keeping_earlier_points(batch: dict) -> None:
    """Do a cell timeout and the notebook deadline end in `timeout`, keeping points before?"""
    slow = {q["id"]: q for q in batch["results"]["slow-cells"]["questions"]}
    assert slow["q1_double"]["status"] == "timeout" and slow["q2_set_first"]["status"] == \
        "timeout"
    loop = batch["results"]["infinite-loop"]["questions"]
    assert [q["status"] for q in loop] in (["error", "passed"], ["failed", "passed"]), loop


@pytest.mark.slow
def test_duplicate_answer_ids_grade_the_last_and_say_so(batch: dict) -> None:
    """With two different cells claiming one answer, is the last graded, with a note?"""
    r = batch["results"]["duplicate-grade-ids"]
    assert (r["status"], r["score"]) == ("graded", 3) and "several cells claim" in r["message"]


@pytest.mark.slow
@pytest.mark.parametrize("case", ["huge-output", "proof-flood"])
def test_huge_output_stays_small(batch: dict, case: str) -> None:
    """Does a 200 MB print, or a flood of small proof-typed outputs, leave result.json and the
    feedback page small?"""
    folder = batch["out"] / case / "00_tiny"
    assert (folder / "result.json").stat().st_size < 20_000
    assert (folder / "feedback.html").stat().st_size < 2_000_000
    assert "output truncated" in (folder / "feedback.html").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("case", BAD_FILES)
def test_bad_input_is_invalid_with_a_clear_message(batch: dict, case: str) -> None:
    """Is each broken file `invalid`, with a message saying what is wrong?"""
    r = batch["results"][case]
    assert r["status"] == "invalid" and BAD_FILES[case][1] in r["message"], r["message"]


@pytest.mark.slow
@pytest.mark.parametrize("case", SANDBOXED)
def test_sandbox_hides_files_and_limits_memory(batch: dict, case: str) -> None:
    """In the sandbox, are solutions unreadable, outside writes refused, memory limited?"""
    if batch["results"][case]["isolation"] != "bubblewrap":
        pytest.skip("bubblewrap does not work here: submissions ran unisolated "
                    "(set LEARN_JAX_REQUIRE_SANDBOX=1 to make this a failure)")
    if case == "fill-runtime-dir" and os.geteuid() != 0:
        pytest.skip("sealing the kernel's socket folder needs the grader to run as root")
    r = batch["results"][case]
    assert (r["status"], r["score"]) == ("graded", SANDBOXED[case][1]), r["questions"]
    assert batch["canary"].read_text() == "untouched"


@pytest.mark.slow
def test_honest_submissions_graded_as_alone(batch: dict) -> None:
    """Is every honest submission in the mixed batch graded exactly as it is alone?"""
    def core(r: dict) -> list:
        return [(q["id"], q["score"], q["status"], q["message"]) for q in r["questions"]]

    alone = {kind: json.loads((batch["alone"] / kind / "00_tiny" / "result.json").read_text())
             for kind in HONEST}
    honest = {c: r for c, r in batch["results"].items() if c.startswith("honest-")}
    assert len(honest) == HONEST_COPIES
    for case, r in honest.items():
        kind = case.split("-", 2)[2]
        status = "not_submitted" if kind == "empty-stub" else "graded"  # left as released
        assert (r["status"], r["score"]) == (status, HONEST[kind])
        assert core(r) == core(alone[kind]), case


@pytest.mark.slow
def test_gradebook_holds_exactly_the_verified_grades(batch: dict) -> None:
    """Does the kept gradebook hold each graded submission's verified score, nothing else?"""
    db = sqlite3.connect(batch["root"] / "course" / "gradebook.db")
    totals = dict(db.execute(
        "select s.student_id, sum(g.auto_score) from grade g "
        "join submitted_notebook n on g.notebook_id = n.id "
        "join submitted_assignment s on n.assignment_id = s.id group by s.student_id"))
    want = {c: r["score"] for c, r in batch["results"].items() if r["status"] == "graded"}
    assert totals == want
    assert "ran unisolated" not in (batch["out"] / "summary.md").read_text() or \
        isolation() == "none"


# ---------------------------------------------------------------- attacks on the grader's
# own process and on timing tests (each with its honest twin)


def _eager_smooth(x: Any) -> Any:
    """A slow reference: 40 small eager operations, each dispatched from Python."""
    for _ in range(20):
        x = x * 0.5 + jnp.roll(x, 1) * 0.5
    return x


def _memoised(fn):
    """A hostile answer: eager code that remembers each result, keyed by the input's bytes and
    by the input object itself (twice as likely to hit when a test repeats its arguments)."""
    import numpy as np

    cache: dict = {}

    def remembered(x):
        key = (id(x), np.asarray(x).tobytes())
        if key not in cache:
            cache[key] = fn(x)
        return cache[key]

    return remembered


@pytest.mark.timing
def test_a_memoising_answer_gains_nothing_while_its_jitted_twin_passes() -> None:
    """Does an eager answer that remembers results fail the timing test (fresh inputs every
    call), while the honest jitted twin passes and the memoiser would pass with repeated
    inputs?"""
    x = jnp.linspace(-1.0, 1.0, 256, dtype=jnp.float32)
    repeated = timing.speedup(_memoised(_eager_smooth), _eager_smooth, x, rounds=5,
                              clock=timing.CPU)
    assert repeated.ratio > 10  # the attack, when every call repeats the first
    with pytest.raises(AssertionError, match="only .*x as fast"):
        timing.check_speedup(_memoised(_eager_smooth), _eager_smooth, x, required=1.5,
                             clock=timing.CPU)
    honest = timing.check_speedup(jax.jit(_eager_smooth), _eager_smooth, x, required=1.5,
                                  clock=timing.CPU)
    assert honest.ratio > 1.5


def test_a_submission_that_stalls_preparation_is_invalid_and_the_batch_goes_on(
        tmp_path: Path, monkeypatch) -> None:
    """When rebuilding one notebook takes longer than the limit (a notebook crafted to stall
    the grader's own steps), is that submission invalid with a message, and is the next one
    (its honest twin) still graded in full?"""
    import time

    from autograder.grader import grading, rebuild
    from autograder.tests.conftest import FIXTURES

    real = rebuild.rebuild

    def slow_for_mallory(released, nb):
        if any("STALL-THE-GRADER" in "".join(c.get("source", "")) for c in nb.cells):
            time.sleep(120)
        return real(released, nb)

    monkeypatch.setattr(rebuild, "rebuild", slow_for_mallory)
    monkeypatch.setattr(grading, "PREPARE_TIMEOUT", 10)  # first imports take seconds
    correct = nbformat.read(FIXTURES / "submissions" / "correct.ipynb", as_version=4)
    for student in ("ann", "mallory"):
        (tmp_path / "subs" / student).mkdir(parents=True)
        nb = correct.copy()
        if student == "mallory":
            nb.cells = [*nb.cells, nbformat.v4.new_markdown_cell("STALL-THE-GRADER")]
        nbformat.write(nb, tmp_path / "subs" / student / "00_tiny.ipynb")
    started = time.monotonic()
    assert main(["grade", str(tmp_path / "subs"), "--source", str(FIXTURES / "course"),
                 "--out", str(tmp_path / "out")]) == 0
    assert time.monotonic() - started < 110  # mallory did not sleep her 120 s
    mallory = json.loads((tmp_path / "out/mallory/00_tiny/result.json").read_text())
    ann = json.loads((tmp_path / "out/ann/00_tiny/result.json").read_text())
    assert mallory["status"] == "invalid" and "took longer than 10 s" in mallory["message"]
    assert (ann["status"], ann["score"]) == ("graded", 5), ann["message"]


# ---------------------------------------------------------------- attacks on the verdict, with
# the screen switched off: what an answer that got past it could do in the kernel


_HOOK = "get_ipython().events.register({event!r}, {fn})\n"
# Waits (up to 60 s) until the shared compilation cache has entries: the trusted run fills it
# beside the grading, so a kernel started first may find it still empty.
_AWAIT_CACHE = ("import os, time, jax, jax.numpy as jnp\n"
                "D = os.environ.get('JAX_COMPILATION_CACHE_DIR', '')\n"
                "def _listing():\n    return sorted(os.listdir(D)) if D and os.path.isdir(D) "
                "else []\n"
                "for _ in range(600):\n    if not D or _listing():\n        break\n"
                "    time.sleep(0.1)\nBEFORE = _listing()\n")
# Leftovers for the next kernel, which the grader starts as soon as this one stops: a marker
# in every folder a kernel can write, and a detached process serving an abstract socket. The
# planter answers question 1 right only when planting worked in its own kernel (so a 5 shows
# the attack was armed); the reader, graded next, answers right only if it finds any of it.
_MARKER = "left-by-the-last-kernel"
PLANT_FOR_NEXT = (
    "import os, socket, subprocess, sys, time\n"
    "PLANTED = []\n"
    "for folder in ('/tmp', '/dev/shm', os.getcwd()):\n    try:\n"
    f"        open(os.path.join(folder, {_MARKER!r}), 'w').write('x')\n"
    "        PLANTED.append(folder)\n    except OSError:\n        pass\n"
    "SERVE = (\"import socket, time\\ns = socket.socket(socket.AF_UNIX)\\n\"\n"
    f"         \"s.bind(chr(0) + {_MARKER!r})\\ns.listen()\\ntime.sleep(120)\\n\")\n"
    "subprocess.Popen([sys.executable, '-c', SERVE], start_new_session=True)\n"
    "for _ in range(50):\n    try:\n        probe = socket.socket(socket.AF_UNIX)\n"
    f"        probe.connect(chr(0) + {_MARKER!r})\n        PLANTED.append('socket')\n"
    "        break\n    except OSError:\n        time.sleep(0.1)\n"
    "def double(x):\n    return 2 * x if {'/tmp', 'socket'} <= set(PLANTED) else x\n")
READ_LEFTOVERS = (
    "import os, socket\n"
    "def _found():\n    for folder in ('/tmp', '/dev/shm', os.getcwd()):\n"
    f"        if os.path.exists(os.path.join(folder, {_MARKER!r})):\n            return True\n"
    "    try:\n        socket.socket(socket.AF_UNIX).connect(chr(0) + "
    f"{_MARKER!r})\n        return True\n    except OSError:\n        return False\n"
    "FOUND = _found()\ndef double(x):\n    return 2 * x if FOUND else x\n")
UNSCREENED: dict[str, tuple[str, str]] = {  # case -> (attack on question 1, its honest twin)
    # The proof republished after an answer raised: the error stays and no result was made.
    "republished-proof": (
        "import re\nfrom IPython.display import display\n"
        "def double(x):\n    raise ValueError('no')\n"
        "def _proof(result):\n    found = re.search(r\"'(q1_double_tests [0-9a-f]+)'\", "
        "result.info.raw_cell)\n    if found:\n        display({'application/x-learn-jax-"
        "proof': found.group(1)}, raw=True)\n" + _HOOK.format(event="post_run_cell",
                                                               fn="_proof"),
        "def double(x):\n    raise ValueError('no')\n"),
    # Results published before the tests' own, claiming an answer and a huge tolerance.
    "forged-results": (
        WRONG_Q1 + "from IPython.display import display\n"
        "def _forge(info):\n    for name in ('double(arange(3.0))', 'double(ones((2, 2)))'):\n"
        "        display({'application/vnd.learn-jax.evidence+json': {'check': 'array', "
        "'name': name, 'got': {'none': True}, 'options': {'rtol': 1e9, 'atol': 1e9}}}, "
        "raw=True)\n" + _HOOK.format(event="pre_run_cell", fn="_forge"), WRONG_Q1),
    # The judge's own publishing patched to loosen every tolerance and drop the mistakes.
    "patched-judge": (
        WRONG_Q1 + "import dataclasses\nimport autograder.kernel.reporter as judge\n"
        "_real = judge._state.sink\njudge._state.sink = lambda e: _real(dataclasses.replace("
        "e, options={'rtol': 1e9, 'atol': 1e9}, mistakes=[]))\n", WRONG_Q1),
    # Expected values looked for in the tests' frames: the kernel holds none.
    "frames-for-expected": (
        "import sys\ndef double(x):\n    frame = sys._getframe(1)\n    while frame:\n"
        "        for name in ('expected', 'want', 'reference'):\n"
        "            if name in frame.f_locals:\n                return frame.f_locals[name]\n"
        "        frame = frame.f_back\n    return x\n", WRONG_Q1),
    # The shared compilation cache, filled by the trusted run, poisoned: planting,
    # overwriting, renaming or chmod-ing an entry, or having JAX itself write one. The kernel
    # sees it read-only, so nothing changes there (and the answer stays wrong).
    "poison-compile-cache": (
        _AWAIT_CACHE + "WROTE = False\n"
        "def _plant():\n    open(os.path.join(D, 'planted-cache'), 'wb').write(b'x')\n"
        "def _overwrite():\n    open(os.path.join(D, BEFORE[0]), 'r+b').write(b'x')\n"
        "def _rename():\n    os.rename(os.path.join(D, BEFORE[0]), os.path.join(D, 'moved'))\n"
        "def _chmod():\n    os.chmod(D, 0o777)\n"
        "for attempt in (_plant, _overwrite, _rename, _chmod):\n    try:\n        attempt()\n"
        "        WROTE = WROTE or bool(BEFORE)\n    except (OSError, IndexError):\n        pass\n"
        "jax.config.update('jax_persistent_cache_min_compile_time_secs', 0.0)\n"
        "jax.jit(lambda v: jnp.sin(v) * 7.0)(jnp.ones(5))\n"
        "WROTE = WROTE or _listing() != BEFORE\n"
        "def double(x):\n    return 2 * x if WROTE else x\n", WRONG_Q1),
}
# The poison attack's honest counterpart: a kernel that reads the cache loads from it a program
# the trusted run compiled in a visible test cell (jnp.arange(3.0)), and keeps its 5 points.
READS_CACHE = (_AWAIT_CACHE + "HITS = []\njax.monitoring.register_event_listener(\n"
               "    lambda event, **_: HITS.append(event) if "
               "event == '/jax/compilation_cache/cache_hits' else None)\njnp.arange(3.0)\n"
               "def double(x):\n    return 2 * x if HITS else x\n")


@pytest.fixture(scope="module")
def unscreened(tmp_path_factory) -> dict:
    """Grade the verdict attacks and their twins with the screen off (one job, here)."""
    from autograder.grader import grading

    root = tmp_path_factory.mktemp("unscreened")
    for case, (attack, twin) in UNSCREENED.items():
        _write(root / "subs" / case, _with_q1(attack))
        _write(root / "subs" / f"twin-{case}", _with_q1(twin))
    _write(root / "subs" / "reads-compile-cache", _with_q1(READS_CACHE))
    # graded one after the other (folders go in name order, one job)
    _write(root / "subs" / "leftovers-plant", _with_q1(PLANT_FOR_NEXT))
    _write(root / "subs" / "leftovers-read", _with_q1(READ_LEFTOVERS))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grading, "screen_answers", lambda nb, source=None: {})
        try:
            _grade([root / "subs"], root / "out")
        finally:  # unsandboxed, the planter wrote on this machine
            for folder in ("/tmp", "/dev/shm"):
                Path(folder, _MARKER).unlink(missing_ok=True)
    return {p.parent.parent.name: json.loads(p.read_text())
            for p in (root / "out").glob("*/*/result.json")}


@pytest.mark.slow
@pytest.mark.parametrize("case", UNSCREENED)
def test_an_answer_past_the_screen_cannot_forge_the_verdict(unscreened: dict, case: str
                                                           ) -> None:
    """With no screen at all, does each attack on the verdict (a republished proof, forged or
    loosened results, expected values looked for in the kernel) score no more than its twin,
    the same answer without the attack, which must keep its own score (3 of 5: question 1
    wrong)?"""
    attack, twin = unscreened[case], unscreened[f"twin-{case}"]
    assert twin["status"] == "graded" and twin["score"] == 3, twin
    assert attack["status"] == "graded", attack["message"]
    assert attack["score"] <= twin["score"], attack["questions"]
    q1 = next(q for q in attack["questions"] if q["id"] == "q1_double")
    assert q1["status"] in ("failed", "error") and q1["message"], q1


@pytest.mark.slow
def test_the_next_kernel_finds_nothing_the_last_one_left(unscreened: dict) -> None:
    """The grader starts each next kernel as soon as the last one stops: does a submission
    that plants markers and a detached socket server (working in its own kernel, where it
    uses /tmp, a subprocess and a socket and keeps its 5 points) leave nothing for the
    submission graded right after it (which stays at 3)?"""
    planter, reader = unscreened["leftovers-plant"], unscreened["leftovers-read"]
    if planter["isolation"] != "bubblewrap":
        pytest.skip("bubblewrap does not work here: unsandboxed kernels share the machine "
                    "(set LEARN_JAX_REQUIRE_SANDBOX=1 to make this a failure)")
    assert (planter["status"], planter["score"]) == ("graded", 5), planter["questions"]
    assert (reader["status"], reader["score"]) == ("graded", 3), reader["questions"]


@pytest.mark.slow
def test_an_honest_kernel_reads_the_shared_compilation_cache(unscreened: dict) -> None:
    """In the sandbox, does a kernel load a program the trusted run compiled in a visible test
    cell from the shared cache (the poison attack's twin, which must keep its 5 points)?"""
    r = unscreened["reads-compile-cache"]
    if r["isolation"] != "bubblewrap":
        pytest.skip("bubblewrap does not work here: kernels get no shared cache "
                    "(set LEARN_JAX_REQUIRE_SANDBOX=1 to make this a failure)")
    assert (r["status"], r["score"]) == ("graded", 5), r["questions"]


@pytest.mark.timing
def test_a_thread_burning_cpu_while_the_reference_runs_fails_the_timing_test() -> None:
    """Does an eager answer whose helper thread burns CPU only while the reference runs (so
    the reference's CPU time grows) fail the timing test with a message naming the thread,
    while the same eager answer without the thread fails only for being slow, and a jitted
    twin passes?"""
    import sys
    import threading

    main = threading.get_ident()
    stop = threading.Event()

    def burn_while_reference_runs() -> None:  # the attack: watch the main thread's stack
        while not stop.is_set():
            frame = sys._current_frames().get(main)
            names = set()
            while frame is not None:
                names.add(frame.f_code.co_name)
                frame = frame.f_back
            if "_eager_smooth" in names:
                sum(i * i for i in range(20_000))

    def eager_answer(x):  # the same eager work as the reference, under another name
        for _ in range(20):
            x = x * 0.5 + jnp.roll(x, 1) * 0.5
        return x

    x = jnp.linspace(-1.0, 1.0, 256, dtype=jnp.float32)
    thread = threading.Thread(target=burn_while_reference_runs, daemon=True)
    thread.start()
    try:
        with pytest.raises(AssertionError, match="another thread was running code"):
            timing.check_speedup(eager_answer, _eager_smooth, x, required=1.5,
                                 clock=timing.CPU)
    finally:
        stop.set()
        thread.join()
    with pytest.raises(AssertionError, match="only .*x as fast"):  # the twin: slow, no thread
        timing.check_speedup(eager_answer, _eager_smooth, x, required=1.5, clock=timing.CPU)
    assert timing.check_speedup(jax.jit(_eager_smooth), _eager_smooth, x, required=1.5,
                                clock=timing.CPU).ratio > 1.5


@pytest.mark.timing
def test_work_an_answer_queues_without_waiting_does_not_land_on_the_reference() -> None:
    """Issue 47: does an eager answer that dispatches heavy work after each call and never
    waits for it (slow on purpose at its calibration call, so that each round calls it once
    and the reference, timed next, would wait behind that work: it passed at 3.5x before)
    fail the timing test for being slow, the work being drained before the reference's
    clock starts, while a jitted twin passes?"""
    import time

    burn = jax.jit(lambda m: jnp.tanh(m @ m) @ m)
    big = jnp.ones((500, 500))
    burn(big).block_until_ready()
    calls = [0]

    def queues_work(x):  # the eager reference's work, then heavy work left running
        calls[0] += 1
        if calls[0] == 2:  # its calibration call: slow, so one call a round
            end = time.process_time() + 0.02
            while time.process_time() < end:
                pass
        out = _eager_smooth(x)
        for _ in range(3):
            burn(big)  # dispatched, never waited for
        return out

    x = jnp.linspace(-1.0, 1.0, 256, dtype=jnp.float32)
    with pytest.raises(AssertionError, match="only .*x as fast"):
        timing.check_speedup(queues_work, _eager_smooth, x, required=1.5, clock=timing.CPU)
    assert timing.check_speedup(jax.jit(_eager_smooth), _eager_smooth, x, required=1.5,
                                clock=timing.CPU).ratio > 1.5


# ---------------------------------------------------------------- how an answer works is
# established outside its control: the real jitted type, JAX's own compile count, and JAX's
# global configuration watched around every call a check or a timing test makes


class _FakeJitted:
    """A hostile answer: eager code dressed as a jitted function (``lower`` and ``trace``
    attributes, a ``_cache_size`` that never grows) that flips a JAX setting on every call, so
    that the reference timed next to it runs under that setting."""

    def __init__(self, fn, setting: str) -> None:
        self.fn, self.setting = fn, setting
        self.lower = self.trace = lambda *a, **k: None
        self._cache_size = lambda: 1

    def __call__(self, x):
        jax.config.update(self.setting, not getattr(jax.config, self.setting))
        return self.fn(x)


def _smooth_batch(xs: Any) -> Any:
    """The slow reference of a batched question: one example at a time, from Python."""
    return jnp.stack([_eager_smooth(x) for x in xs])


@pytest.mark.timing
@pytest.mark.parametrize("setting", ["jax_disable_jit", "jax_debug_nans"])
def test_a_fake_jitted_answer_that_flips_jax_settings_loses_its_points(setting: str) -> None:
    """Does an eager object with ``lower``/``trace`` attributes that flips a JAX setting on
    every call fail "is jitted", "compiles once" (its own cache size is never read) and the
    timing test (the change is named, and undone before the reference runs), leaving the
    setting as it was?"""
    from autograder.kernel.jax_checks import cache_size, check_jitted, check_no_retrace

    x = jnp.linspace(-1.0, 1.0, 256, dtype=jnp.float32)
    before = getattr(jax.config, setting)
    fake = _FakeJitted(_eager_smooth, setting)
    try:
        with pytest.raises(AssertionError, match="not a jitted function"):
            check_jitted(fake, "fast")
        with pytest.raises(AssertionError, match="cannot be measured"):
            cache_size(fake)
        with pytest.raises(AssertionError, match="not a jitted function"):
            check_no_retrace(fake, x, name="fast(x)")
        with pytest.raises(AssertionError, match=f"changed JAX's global configuration.*{setting}"):
            timing.check_speedup(fake, _eager_smooth, x, required=1.5, clock=timing.CPU)
        assert getattr(jax.config, setting) == before
    finally:
        jax.config.update(setting, before)


@pytest.mark.timing
def test_honest_uses_of_jax_config_and_vmap_of_jit_keep_their_points() -> None:
    """The twins: does a jitted answer keep every point when a JAX setting was changed
    *before* the tests (and stays so), and does an honest ``vmap(jit(f))`` pass the timing
    and vectorisation tests (its config untouched)?"""
    from autograder.kernel.jax_checks import (
        cache_size,
        check_jitted,
        check_no_retrace,
        check_vectorised,
    )

    x = jnp.linspace(-1.0, 1.0, 256, dtype=jnp.float32)
    jax.config.update("jax_numpy_rank_promotion", "raise")  # the learner's choice, beforehand
    try:
        fast = jax.jit(_eager_smooth)
        check_jitted(fast, "fast")
        check_no_retrace(fast, x, name="fast(x)")
        size = cache_size(fast)  # JAX's own count (shared by jits of one function)
        fast(x * 2)
        assert size >= 1 and cache_size(fast) == size
        assert timing.check_speedup(fast, _eager_smooth, x, required=1.5,
                                    clock=timing.CPU).ratio > 1.5
        assert jax.config.jax_numpy_rank_promotion == "raise"  # left as the learner set it
    finally:
        jax.config.update("jax_numpy_rank_promotion", "allow")
    batched = jax.vmap(jax.jit(_eager_smooth))
    xs = jnp.stack([x * (1 + k) for k in range(8)])
    check_vectorised(batched, lambda n: (xs[:1].repeat(n, axis=0),), name="batched")
    assert timing.check_speedup(batched, _smooth_batch, xs, required=1.5,
                                clock=timing.CPU).ratio > 1.5


# ---------------------------------------------------------------- issue 38, items 2 and 3: what
# the kernel observes about an answer. Timing on inputs no answer can foresee, with the timed
# outputs checked; host callbacks seen inside jitted programs; purity decided from behaviour.
# Each attack scored full points before; each sits beside an honest twin that keeps them.


def _smooth(x: Any, steps: int) -> Any:
    """06 q5's eager smooth(x, steps), the reference its timing test compares with."""
    for i in range(steps):
        x = 0.9 * jnp.tanh(x) + 0.1 * jnp.sin(x + i)
    return x


def _fresh_signal(rng: Any) -> tuple:
    """06 q5's recipe for each timed call's input: a new random signal in [-3, 3]."""
    return jnp.asarray(rng.uniform(-3.0, 3.0, size=256), jnp.float32), 50


def _memoising_callback_answer():
    """The attack that scored 3/3 at 17-22x on 06 q5: a jitted pure_callback into the eager
    code that remembers results by a scale-free key (a rescaled input hits the memo)."""
    import numpy as np

    remembered: dict = {}

    def eager(a, steps):
        key = (a.shape, steps, np.round(a / (np.abs(a).max() + 1e-30), 5).tobytes())
        if key not in remembered:
            remembered[key] = np.asarray(_smooth(jnp.asarray(a), steps))
        return remembered[key]

    def fast(x, steps):
        shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return jax.pure_callback(lambda a: eager(np.asarray(a), steps), shape, x)

    return jax.jit(fast, static_argnames="steps")


@pytest.mark.timing
def test_a_memoising_pure_callback_loses_05_q5s_timing_points_while_jit_keeps_them() -> None:
    """Does the memoising jitted pure_callback fail 06 q5's timing test, naming the callback
    (and measuring no speedup, since no fresh input repeats), while the honest
    ``jax.jit(smooth, static_argnames="steps")`` passes all three of its results?"""
    from autograder.kernel import reporter

    x = jnp.linspace(-3.0, 3.0, 256, dtype=jnp.float32)
    results = {}
    for label, fast in (("attack", _memoising_callback_answer()),
                        ("honest", jax.jit(_smooth, static_argnames="steps"))):
        entries: list = []
        with reporter.collecting(entries.append):
            timing.check_speedup(fast, _smooth, x, 50, required=1.5, inputs=_fresh_signal,
                                 what="fast(x, 50)", clock=timing.CPU)
        results[label] = entries
    compiled, values, speed = results["attack"]
    assert "calls back into Python" in compiled.got and "pure_callback" in compiled.got
    assert speed.got["ratio"] < 1.5  # no input repeats: the memo never hits
    assert [e.got for e in results["honest"][:2]] == ["ok", "ok"]
    assert results["honest"][2].got["ratio"] > 1.5


@pytest.mark.timing
def test_an_answer_that_returns_remembered_results_fails_on_fresh_inputs() -> None:
    """Does an answer that is fast because it returns a result remembered from its first call
    (no callback: jitted work, then a dictionary) fail the timed-values check, while the
    same jitted work computed on every call passes?"""
    honest = jax.jit(_smooth, static_argnames="steps")
    remembered: dict = {}

    def stale(x, steps):
        if x.shape not in remembered:
            remembered[x.shape] = honest(x, steps)
        return remembered[x.shape]

    x = jnp.linspace(-3.0, 3.0, 256, dtype=jnp.float32)
    with pytest.raises(AssertionError, match=r"returned wrong values on \d+ of the \d+ timed"):
        timing.check_speedup(stale, _smooth, x, 50, required=1.5, inputs=_fresh_signal,
                             clock=timing.CPU)
    assert timing.check_speedup(honest, _smooth, x, 50, required=1.5, inputs=_fresh_signal,
                                clock=timing.CPU).ratio > 1.5


def _mlp_one(p: dict, x: Any) -> Any:
    """10 q5's per-example network."""
    return p["w2"] @ jnp.tanh(p["w1"] @ x + p["b1"]) + p["b2"]


def _mlp_params(rng: Any) -> dict:
    shapes = {"w1": (32, 16), "b1": (32,), "w2": (4, 32), "b2": (4,)}
    return {k: jnp.asarray(rng.normal(size=s) / s[-1] ** 0.5, jnp.float32)
            for k, s in shapes.items()}


@pytest.mark.timing
def test_a_numpy_loop_callback_fails_07_q5_while_vmap_of_a_jitted_function_passes() -> None:
    """Does the jitted pure_callback that loops over the batch in NumPy (3/3 at 6-8x before:
    one equation at any batch size) fail 10 q5's "vectorised" check and the timing test's
    "compiled" result, naming the callback, while an honest ``jit(vmap(jit(mlp)))`` passes
    the vectorised check and all three timing results?"""
    import numpy as np

    from autograder.kernel import reporter
    from autograder.kernel.jax_checks import check_jitted, check_vectorised

    def numpy_loop(p, xs):
        p = {k: np.asarray(v) for k, v in p.items()}
        rows = [p["w2"] @ np.tanh(p["w1"] @ x + p["b1"]) + p["b2"] for x in np.asarray(xs)]
        return np.stack(rows).astype(np.float32)

    def via_callback(p, xs):
        return jax.pure_callback(numpy_loop, jax.ShapeDtypeStruct((xs.shape[0], 4), xs.dtype),
                                 p, xs)

    one = jax.jit(_mlp_one)

    def loop(p, xs):  # 10 q5's reference: one jitted call per example
        return jnp.stack([one(p, x) for x in xs])

    rng = np.random.default_rng(0)
    params = _mlp_params(rng)
    xs = jnp.asarray(rng.normal(size=(256, 16)), jnp.float32)
    recipe = lambda r: (_mlp_params(r), jnp.asarray(r.normal(size=(256, 16)), jnp.float32))
    make = lambda n: (params, jnp.ones((n, 16)))
    attack, honest = jax.jit(via_callback), jax.jit(jax.vmap(jax.jit(_mlp_one), (None, 0)))
    with pytest.raises(AssertionError, match="calls back into Python.*`numpy_loop`"):
        check_vectorised(attack.__wrapped__, make, name="fast")
    with pytest.raises(AssertionError, match="calls back into Python.*`numpy_loop`"):
        check_jitted(attack, "fast", args=(params, xs))
    entries: list = []
    with reporter.collecting(entries.append):
        timing.check_speedup(attack, loop, params, xs, required=1.5, inputs=recipe,
                             clock=timing.CPU)
    assert "calls back into Python" in entries[0].got and entries[1].got == "ok"
    check_vectorised(honest.__wrapped__, make, name="fast")
    check_jitted(honest, "fast", args=(params, xs))
    assert timing.check_speedup(honest, loop, params, xs, required=1.5, inputs=recipe,
                                clock=timing.CPU).ratio > 1.5


def test_impure_02_answers_fail_purity_while_pure_twins_keep_their_points() -> None:
    """03 q1's three impure answers that passed before (a write into a global dict, which left
    tracers in it; a helper assigning a global; a functools.partial with no code of its own)
    fail check_pure, naming what they changed, while pure twins, one printing with
    jax.debug.print and one using a pure_callback where purity is all that is asked, pass."""
    import functools

    import numpy as np

    from autograder.kernel.jax_checks import check_pure

    namespace: dict = {"jax": jax, "jnp": jnp, "np": np, "functools": functools}
    exec(compile('''
CONFIG = {"scale": 1.0}
_last = None

def dict_write(x, scale, shift):
    CONFIG["scale"] = scale
    return CONFIG["scale"] * x + shift

def _remember(scale):
    global _last
    _last = scale

def via_helper(x, scale, shift):
    _remember(scale)
    return scale * x + shift

def _logged(x, scale, shift, log):
    log.append(scale)
    return scale * x + shift

partial_answer = functools.partial(_logged, log=[])

def pure(x, scale, shift):
    return scale * x + shift

def debug_printing(x, scale, shift):
    jax.debug.print("scale = {}", scale)
    return scale * x + shift

def with_callback(x, scale, shift):
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.pure_callback(lambda a, s, b: np.asarray(s * a + b, a.dtype), shape, x, scale,
                             shift)

pure_partial = functools.partial(pure, shift=1.0)
''', "answer cell", "exec"), namespace)
    x = jnp.array([0.0, 1.0, 2.0])
    for name, shown in (("dict_write", "`CONFIG`['scale'] changed"),
                        ("via_helper", "helper `_remember` assigns the global `_last`"),
                        ("partial_answer", "keyword argument log= of a functools.partial")):
        with pytest.raises(AssertionError, match="affine is not pure") as raised:
            check_pure(namespace[name], x, 2.0, 1.0, name="affine")
        assert shown in str(raised.value)
    jitted = jax.jit(namespace["dict_write"])
    jitted(x, 5.0, 1.0)
    assert isinstance(namespace["CONFIG"]["scale"], jax.core.Tracer)  # what the attack left
    for name in ("pure", "debug_printing", "with_callback"):
        check_pure(namespace[name], x, 2.0, 1.0, name="affine")
    check_pure(namespace["pure_partial"], x, 2.0, name="affine")
