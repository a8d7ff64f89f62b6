"""Tests of the suite's own scheduling (conftest.py): under ``pytest -n 2 --dist loadgroup``
(``make test``), the groups conftest.py marks are the ones pytest-xdist really runs by."""

from __future__ import annotations

import collections
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_RAN = re.compile(r"^\[(gw\d+)\] \[ *\d+%\] PASSED (\S+?)@(\S+)\s*$")


def _workers(*args: str) -> dict[str, set[str]]:
    """Run pytest on two xdist workers with ``args``; group -> the workers its tests ran on
    (from the verbose report, whose test ids carry the ``@group`` xdist scheduled by)."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup",
                           "-v", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    ran = collections.defaultdict(set)
    for line in proc.stdout.splitlines():
        found = _RAN.match(line)
        if found:
            ran[found.group(3)].add(found.group(1))
    return dict(ran)


def test_each_module_runs_on_one_worker() -> None:
    """Are a module's tests scheduled as one group, on one worker (so its module-scoped
    fixtures are built once), two modules still spreading over both workers' queue?"""
    ran = _workers("autograder/tests/test_layout.py", "autograder/tests/test_progress.py",
                   "autograder/tests/test_proof.py")
    assert set(ran) == {"test_layout", "test_progress", "test_proof"}
    assert all(len(workers) == 1 for workers in ran.values()), ran


def test_timing_tests_of_two_modules_share_one_worker() -> None:
    """Do tests marked ``timing`` in different modules run in one group, on one worker, so
    that no two timing-sensitive tests ever run side by side?"""
    ran = _workers("autograder/tests/test_bench.py", "autograder/tests/test_exercises.py",
                   "-k", "fill_answers_as_named or hold_no_expected_values")
    assert set(ran) == {"timing"} and len(ran["timing"]) == 1, ran
