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
    return json.loads(lines[-1][len("HARNESS-JSON "):])
