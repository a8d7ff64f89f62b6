"""Run the exercise harness once per (interpreter, source) in a test session and share the report.

``test_exercises.py`` asks it on the pinned stack, ``test_colab.py`` on Colab's and compares the
two, so each source's harness runs once per stack, not once per test module.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.tests.suite_report import note_checks

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def harness_report(source: Path, python: str = sys.executable) -> dict:
    """The harness's JSON report for ``source`` run by ``python`` (from the source's folder).

    The repository is put on ``PYTHONPATH`` so an interpreter whose site-packages hold an
    installed copy of the course package runs this checkout's harness and fixtures.
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p))
    proc = subprocess.run(
        [python, "-m", "autograder.tests.exercise_harness", str(source)],
        capture_output=True, text=True, cwd=source.parent, timeout=600, env=env,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("HARNESS-JSON ")]
    assert lines, f"harness printed no report:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    report = json.loads(lines[-1][len("HARNESS-JSON "):])
    note_checks({"runtime": runtime_named(python), "source": source.stem,
                 "questions": len(report["questions"]),
                 "wrong": sum(len(e.get("wrong", {})) for e in report["questions"].values())})
    return report


@functools.cache
def runtime_named(python: str) -> str:
    """The name of the runtime whose Python ``python`` is: ``tools`` for this interpreter, else
    the runtime (``colab``, ``newest``) whose registered kernel runs it, else ``python``."""
    if python == sys.executable:
        return "tools"
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    from autograder.tests.conftest import RUNTIMES_SCRIPT

    for name, runtime in RUNTIMES_SCRIPT.RUNTIMES.items():
        try:
            spec = KernelSpecManager().get_kernel_spec(runtime["kernel"])
        except NoSuchKernel:
            continue
        if spec.argv[:1] == [python]:
            return name
    return python


def times_answers(source: Path) -> bool:
    """Whether a test cell of the exercise source ``source`` times the answers (calls
    ``check_speedup``)."""
    nb = json.loads(source.read_text())
    return any(cell.get("metadata", {}).get("nbgrader", {}).get("grade")
               and "check_speedup(" in "".join(cell.get("source", []))
               for cell in nb.get("cells", []))


def source_param(source: Path) -> object:
    """``source`` as a test parameter for the harness's tests, on every runtime: a source
    whose tests time answers is marked ``timing`` (one group, never beside another timing
    test); any other runs in a group of its own, ``exercise[<stem>]``, so that its pinned
    report, which the other runtimes' tests compare against, is made once, on one worker."""
    marks = (pytest.mark.timing if times_answers(source)
             else pytest.mark.xdist_group(f"exercise[{source.stem}]"))
    return pytest.param(source, id=source.stem, marks=marks)


MAX_FAILURE_LINES = 15  # a failing check, as a notebook shows it (issue 28)
_COURSE_MARKS = ("autograder/kernel", "autograder/core", "autograder/grader", "site-packages",
                 "contextlib.py", "Traceback (most recent call last)")


def long_or_course_failures(report: dict) -> dict[str, str]:
    """The wrong-answer failures of a harness report shown in more than
    :data:`MAX_FAILURE_LINES` lines or with a frame of the course's code (its test cell, its
    package, the libraries), each with what the learner would see."""
    found = {}
    test_cell = f"<{Path(report['notebook']).stem} tests "  # the harness's name of a test cell
    for q, entry in report["questions"].items():
        for case, shown in entry.get("shown", {}).items():
            lines = shown.splitlines()
            marks = [m for m in _COURSE_MARKS if m in shown]
            if test_cell in shown:
                marks.append("the test cell")
            if len(lines) > MAX_FAILURE_LINES or marks:
                found[f"{q}/{case}"] = f"{len(lines)} lines, course frames {marks}:\n{shown}"
    return found
