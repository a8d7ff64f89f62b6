"""Run one exercise source's checks in this process and print a JSON report.

Usage: ``python -m autograder.tests.exercise_harness solutions/NN_name.ipynb``

For every question it asks: does the reference answer pass its test cell, does the released
stub fail it, and does each wrong-answer fixture in ``wrong_answers/NN_name/`` fail it? A
fresh process per notebook lets chapters that simulate eight CPU devices set XLA's flags
before JAX starts. Cells run as plain Python (magics transformed), which is much faster than
a kernel per case.

The stubs come from the committed ``exercises/NN_name.ipynb`` (``make test`` checks first that
they are what ``solutions/`` generates), so the harness needs no nbgrader and runs on Colab's
packages too (``make test-colab``).

The report, per question (``report["questions"][answer_id]``):

- ``reference``, ``stub``: ``"passed"``, or the error's ``"Class: first line"``;
- ``stub_hint``: the name of the generic hint matching the stub's error (``not-attempted``
  for an untouched ``raise NotImplementedError()``), None when none matches;
- ``wrong[case]``: the course's message for that wrong answer (``hints.Explanation.message``:
  a test's own message plus the advice and hints shown; JAX's error text only when the course
  has nothing to say about it), or ``"PASSED (should fail)"``. It is meant to read the same on
  every supported JAX version;
- ``error[case]``: the raw ``"Class: first line"`` of the error (JAX's own words, which may
  differ between versions);
- ``hint[case]``: the name of the course's generic hint shown for that failure
  (:func:`autograder.kernel.hints.hint_name`), None when none is shown (the test's own message
  or advice says it all, or no hint matches); ``own[case]``: whether the message is the
  course's own (a check's ``AssertionError``), not JAX's or Python's;
- ``seen[case]``: everything the learner reads: what the test cell printed (the feedback lines
  with their hints), then the error line where the notebook shows it (not after a failing
  check's ``not yet`` line, which holds it already: the message is shown once);
- ``expect[case]``: the fixture's ``# expect: <text>`` line (None when missing), which must be
  a substring of ``seen[case]`` (``test_exercises.py`` checks it);
- ``shown[case]``: the whole failure as a notebook shows it: what the test cell printed, then
  the error display that IPython's handler (:mod:`autograder.kernel.tracebacks`, run by this
  interpreter's IPython) makes of the exception;
- ``uncased``: the names of the hidden checks the reference run recorded without a test case
  description (:func:`autograder.kernel.hints.case`);
- ``records``: test id -> the trusted records of its checks, as JSON (hidden ones marked), so
  a test can look for hidden expected values in what the learner sees.
- ``compiles`` (the report's, not a question's): every program JAX compiled during the
  reference run, in order, as :class:`autograder.tests.compile_audit.Program` JSON labelled
  with the cell that compiled it (``<answer id> tests`` for a test cell), which
  ``test_compile_audit.py`` reads to find a program compiled twice.

Every case starts from the same state: NumPy's and Python's global random generators are
seeded, so answers that (wrongly) draw from them fail with the same numbers on every run.
The cells' source is registered with ``linecache``, as IPython does, so tracebacks and hints
can see the learner's lines.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

import matplotlib

# The grader's package first: it keeps jsonschema (which nbformat imports) from compiling the
# grammars of rfc3987-syntax (autograder/grader): 4.3 user s less per harness run (02: 26.9 to
# 22.6).
import autograder.grader  # noqa: F401

matplotlib.use("Agg")

import nbformat  # noqa: E402

from autograder.core.decide import decide
from autograder.core.evidence import Entry  # noqa: E402
from autograder.core.notebook import code_of, is_answer, nbgrader_meta, questions  # noqa: E402
from autograder.grader.judging import reference_run  # noqa: E402
from autograder.grader.judging.reference_run import run_code, split_hidden  # noqa: E402
from autograder.grader.judging.verdict import record_of, reference_failure  # noqa: E402
from autograder.grader.release import written_records  # noqa: E402
from autograder.kernel.hints import explain, first_line, hint_name  # noqa: E402
from autograder.kernel.reporter import collecting, expecting  # noqa: E402
from autograder.tests.compile_audit import recording_compiles  # noqa: E402

FIXTURES = Path(__file__).parent / "wrong_answers"
EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
EXPECT_PREFIX = "# expect:"


class Outcome(reference_run.Outcome):
    """How running some code ended, as the learner sees it."""

    @property
    def line(self) -> str | None:
        """``"Class: first line"`` of the error, None on success."""
        return None if self.exc is None else first_line(self.exc)

    @property
    def shown(self) -> str:
        """The failure as a notebook shows it: printed lines, then IPython's error display."""
        parts = [self.printed.rstrip()] if self.printed.strip() else []
        if self.exc is not None:
            parts.append("\n".join(_displayed(self.exc)))
        return "\n".join(parts)

    @property
    def seen(self) -> str:
        """What the learner sees: the printed lines, then the error line, unless the test
        cell printed it already (a failing check's ``Question N: not yet. <error>`` line: the
        notebook's error display then shows the learner's frames, not the message again,
        :func:`autograder.kernel.tracebacks.failure_lines`)."""
        printed = self.printed.rstrip()
        parts = [printed] if printed.strip() else []
        if self.exc is not None and not _said_by_feedback(self.exc, printed):
            parts.append(first_line(self.exc))
        return "\n".join(parts)


def _said_by_feedback(exc: BaseException, printed: str) -> bool:
    """Did ``feedback`` report ``exc`` in ``printed`` (a test cell's output), so that the
    notebook's display of it (:func:`autograder.kernel.tracebacks.failure_lines`) leaves its
    message out?"""
    from autograder.kernel import tracebacks

    return bool(getattr(exc, tracebacks._COURSE, None)) and any(
        line.endswith((f": not yet. {first_line(exc)}", ": not attempted yet."))
        for line in printed.splitlines())


def _displayed(exc: BaseException) -> list[str]:
    """The error display the course's IPython handler makes of ``exc`` (its structured
    traceback, without colours), as a kernel would send it."""
    import re

    from IPython.core.interactiveshell import InteractiveShell

    from autograder.kernel import tracebacks

    shell = InteractiveShell.instance()
    sent: list[list[str]] = []
    shell._showtraceback = lambda etype, value, stb: sent.append(stb)
    tracebacks._handler(shell, type(exc), exc, exc.__traceback__)
    text = "\n".join(sent[-1]) if sent else ""
    return re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines()


def _run(code: str, ns: dict, name: str) -> Outcome:
    """Execute ``code`` in ``ns`` from a seeded state; return how it ended."""
    ran = run_code(code, ns, name)
    return Outcome(ran.exc, ran.printed)


def _judged(code: str, ns: dict, name: str, records: list[Entry]) -> Outcome:
    """Run a test cell deciding its checks against the reference's ``records``, as a
    released exercise decides its visible checks and the grader all of them."""
    with expecting(records):
        return _run(code, ns, name)


def _stale_values(notebook: str, test_id: str, seen: list[Entry],
                  released: list[Entry]) -> list[str]:
    """Why the expected values released in ``exercises/`` for a test cell no longer match the
    reference answers' visible checks (empty when they do, within each check's tolerance)."""
    visible = [e for e in seen if not e.hidden]
    fix = "run `make release`"
    if [e.key for e in visible] != [e.key for e in released]:
        return [f"{notebook} {test_id}: the released checks {[e.name for e in released]} are "
                f"not the visible checks {[e.name for e in visible]}; {fix}"]
    problems = []
    for record, entry in zip(released, visible, strict=True):
        if record.check == "speedup":
            continue  # a timing test's record holds its rule only
        try:
            decide(record, entry)
        except (AssertionError, ValueError) as exc:
            problems.append(f"{notebook} {test_id}: the released value of {record.name} is "
                            f"stale ({exc}); {fix}")
    return problems


def expectation(fixture: Path) -> str | None:
    """The text after ``# expect:`` on the fixture's first line, or None without one."""
    lines = fixture.read_text().splitlines()
    if lines and lines[0].startswith(EXPECT_PREFIX):
        return lines[0][len(EXPECT_PREFIX):].strip() or None
    return None


def check(path: Path) -> dict:
    """Report for one source notebook (see module docstring)."""
    nb = nbformat.read(path, as_version=4)
    stub = nbformat.read(EXERCISES / path.name, as_version=4)
    qs = questions(nb)
    tests = {q.tests_id: q for q in qs}
    report: dict = {"notebook": path.name, "questions": {}, "errors": [], "uncased": [],
                    "records": {}}

    # Reference run, keeping the namespace as it was before each answer cell.
    ns: dict = {"__name__": "__main__"}
    before_answer: dict[str, dict] = {}
    test_source: dict[str, str] = {}
    records: dict[str, list[Entry]] = {}
    released = written_records((EXERCISES / path.name).read_text())
    start = time.perf_counter()
    with recording_compiles() as compiles:  # which programs the reference compiles
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            meta = nbgrader_meta(cell)
            if is_answer(cell):
                before_answer[meta["grade_id"]] = dict(ns)
            if meta.get("grade_id") in tests:
                test_source[meta["grade_id"]] = code_of(cell)
                seen: list[Entry] = []
                for part, hidden in split_hidden(code_of(cell)):
                    before = len(seen)
                    with collecting(seen.append, recording=True):
                        result = _run(part, ns, f"<{path.stem} tests {meta['grade_id']}>")
                    for entry in seen[before:]:
                        entry.hidden = hidden
                    if result.exc is not None:
                        break
                records[meta["grade_id"]] = [record_of(e) for e in seen]
                report["records"][meta["grade_id"]] = [
                    e.to_json() for e in records[meta["grade_id"]]]
                report["uncased"] += [f"{meta['grade_id']}: {e.name}" for e in seen
                                      if e.hidden and not e.options.get("case")]
                report["errors"] += _stale_values(path.name, meta["grade_id"], seen,
                                                  released.get(meta["grade_id"], []))
                failures = [f"AssertionError: {why}" for why in map(reference_failure, seen)
                            if why]
                q = tests[meta["grade_id"]]
                report["questions"].setdefault(q.answer_id, {})["reference"] = (
                    result.line or (failures[0] if failures else "passed"))
                report["questions"][q.answer_id]["checks"] = len(seen)
                compiles.mark(f"{q.answer_id} tests")
                continue
            result = _run(code_of(cell), ns, f"<{path.stem} cell {i}>")
            if result.exc is not None:
                report["errors"].append(f"reference cell {i} failed: {result.line}")
            compiles.mark(meta["grade_id"] if is_answer(cell) else f"cell {i}")
    report["compiles"] = [program.to_json() for program in compiles.programs]
    report["reference_seconds"] = round(time.perf_counter() - start, 1)

    # Stub: the released cell for each answer, in the reference namespace before it.
    stub_answers = {nbgrader_meta(c)["grade_id"]: c for c in stub.cells if is_answer(c)}
    for q in qs:
        entry = report["questions"].setdefault(q.answer_id, {})
        tests_name = f"<{path.stem} tests {q.tests_id}>"
        ns_q = dict(before_answer[q.answer_id])
        _run(code_of(stub_answers[q.answer_id]), ns_q, f"<{path.stem} stub {q.answer_id}>")
        result = _judged(test_source[q.tests_id], ns_q, tests_name, records[q.tests_id])
        entry["stub"] = result.line or "PASSED (should fail)"
        entry["stub_hint"] = hint_name(result.exc) if result.exc is not None else None
        entry["points"] = q.points
        for field in ("wrong", "error", "seen", "expect", "shown", "hint", "own"):
            entry[field] = {}
        for fixture in sorted((FIXTURES / path.stem).glob(f"{q.answer_id}__*.py")):
            case = fixture.stem
            ns_w = dict(before_answer[q.answer_id])
            entry["expect"][case] = expectation(fixture)
            answer = _run(fixture.read_text(), ns_w, str(fixture))
            if answer.exc is not None:
                entry["wrong"][case] = f"answer cell itself raised: {answer.line}"
                entry["error"][case] = answer.line
                entry["seen"][case] = answer.seen
                continue
            result = _judged(test_source[q.tests_id], ns_w, tests_name, records[q.tests_id])
            if result.exc is None:
                entry["wrong"][case] = "PASSED (should fail)"
            else:
                said = explain(result.exc)
                entry["wrong"][case] = said.message
                entry["hint"][case] = hint_name(result.exc) if said.hint else None
                entry["own"][case] = said.own
            entry["error"][case] = result.line
            entry["seen"][case] = result.seen
            entry["shown"][case] = result.shown
    known = {q.answer_id for q in qs}
    for fixture in sorted((FIXTURES / path.stem).glob("*.py")):
        if fixture.stem.split("__")[0] not in known:
            report["errors"].append(f"fixture {fixture.name} names no question of {path.name}")
    return report


if __name__ == "__main__":
    try:
        result = check(Path(sys.argv[1]))
    except Exception:  # noqa: BLE001
        result = {"notebook": sys.argv[1], "errors": [traceback.format_exc()], "questions": {}}
    print("HARNESS-JSON " + json.dumps(result))
