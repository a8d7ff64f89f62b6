"""Run one exercise source's checks in this process and print a JSON report.

Usage: ``python -m autograder.tests.exercise_harness solutions/NN_name.ipynb``

For every question it asks: does the reference answer pass its test cell, does the released
stub fail it, and does each wrong-answer fixture in ``wrong_answers/NN_name/`` fail it? A
fresh process per notebook lets chapters that simulate eight CPU devices set XLA's flags
before JAX starts. Cells run as plain Python (magics transformed), which is much faster than
a kernel per case.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
import traceback
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import nbformat  # noqa: E402

from autograder.notebook import code_of, is_answer, nbgrader_meta, questions  # noqa: E402
from autograder.release import student_version  # noqa: E402

FIXTURES = Path(__file__).parent / "wrong_answers"


def _run(code: str, ns: dict, name: str) -> str | None:
    """Execute ``code`` in ``ns``; return None on success, else the error's last line."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, name, "exec"), ns)
    except BaseException as exc:  # noqa: BLE001 - SystemExit from a bad answer counts too
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return None


def check(path: Path) -> dict:
    """Report for one source notebook (see module docstring)."""
    nb = nbformat.read(path, as_version=4)
    stub = student_version(nb)
    qs = questions(nb)
    tests = {q.tests_id: q for q in qs}
    report: dict = {"notebook": path.name, "questions": {}, "errors": []}

    # Reference run, keeping the namespace as it was before each answer cell.
    ns: dict = {"__name__": "__main__"}
    before_answer: dict[str, dict] = {}
    test_source: dict[str, str] = {}
    start = time.perf_counter()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        meta = nbgrader_meta(cell)
        if is_answer(cell):
            before_answer[meta["grade_id"]] = dict(ns)
        if meta.get("grade_id") in tests:
            test_source[meta["grade_id"]] = code_of(cell)
        err = _run(code_of(cell), ns, f"cell {i}")
        if meta.get("grade_id") in tests:
            q = tests[meta["grade_id"]]
            report["questions"].setdefault(q.answer_id, {})["reference"] = err or "passed"
        elif err:
            report["errors"].append(f"reference cell {i} failed: {err}")
    report["reference_seconds"] = round(time.perf_counter() - start, 1)

    # Stub: the released cell for each answer, in the reference namespace before it.
    stub_answers = {nbgrader_meta(c)["grade_id"]: c for c in stub.cells if is_answer(c)}
    for q in qs:
        entry = report["questions"].setdefault(q.answer_id, {})
        ns_q = dict(before_answer[q.answer_id])
        _run(code_of(stub_answers[q.answer_id]), ns_q, "stub")
        err = _run(test_source[q.tests_id], ns_q, "tests")
        entry["stub"] = err or "PASSED (should fail)"
        entry["points"] = q.points
        entry["wrong"] = {}
        for fixture in sorted((FIXTURES / path.stem).glob(f"{q.answer_id}__*.py")):
            ns_w = dict(before_answer[q.answer_id])
            err = _run(fixture.read_text(), ns_w, fixture.name)
            if err is None:
                err = _run(test_source[q.tests_id], ns_w, "tests")
                entry["wrong"][fixture.stem] = err or "PASSED (should fail)"
            else:
                entry["wrong"][fixture.stem] = f"answer cell itself raised: {err}"
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
