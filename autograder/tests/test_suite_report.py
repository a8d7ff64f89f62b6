"""Tests of the suite report (suite_report.py): where the suite's time goes, per module and
runtime, with the kernels and harness runs each area started."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from autograder.tests.suite_report import ProcessCounter, module_of, runtime_of

ROOT = Path(__file__).resolve().parents[2]


def test_runtime_and_module_are_read_from_a_test_id() -> None:
    """Is a test's runtime the runtime word among its parameters (and ``-`` without one), and
    its module the file's stem?"""
    assert runtime_of("autograder/tests/test_runtimes.py::test_x[colab-06_jit]") == "colab"
    assert runtime_of("autograder/tests/test_hint_corpus.py::test_y[newest-06_jit]") == "newest"
    assert runtime_of("autograder/tests/test_exercises.py::test_z[06_jit]") == "-"
    assert runtime_of("autograder/tests/test_layout.py::test_w") == "-"
    assert runtime_of("test_small.py::test_k[colab]@test_small:colab") == "colab"
    assert runtime_of("test_small.py::test_k[06_jit]@exercise:06_jit") == "-"
    assert module_of("autograder/tests/test_runtimes.py::test_x[colab]") == "test_runtimes"


def test_counter_counts_kernels_started_below_this_process() -> None:
    """Does the process counter count a child (and a grandchild) whose command line is a
    kernel's, and nothing for a child that is not, with no thread of its own in this process
    (a timing test would take one for code running beside the answer)?"""
    import threading

    threads = threading.active_count()
    counter = ProcessCounter(interval=0.05)
    counter.start()
    try:
        before = counter.snapshot()
        sleeper = "import time; time.sleep(1.0)"
        # The middle process's own command line must not name the kernel's module.
        grandchild = (f"import subprocess, sys; subprocess.run([sys.executable, '-c', "
                      f"{sleeper!r}, 'ipy' + 'kernel_launcher'])")
        procs = [subprocess.Popen([sys.executable, "-c", sleeper, "ipykernel_launcher"]),
                 subprocess.Popen([sys.executable, "-c", grandchild]),
                 subprocess.Popen([sys.executable, "-c", sleeper, "something-else"])]
        time.sleep(0.6)
        assert threading.active_count() == threads
        for proc in procs:
            proc.wait()
        after = counter.snapshot()
    finally:
        counter.stop()
    assert after.get("kernels", 0) - before.get("kernels", 0) == 2
    assert after.get("harness runs", 0) == before.get("harness runs", 0)


_SUITE = '''
import subprocess, sys

import pytest


@pytest.mark.parametrize("runtime", ["colab", "newest"])
def test_starts_a_kernel(runtime):
    subprocess.run([sys.executable, "-c", "import time; time.sleep(0.8)", "ipykernel_launcher"])


def test_plain():
    pass


def test_burns_cpu():
    busy = ("import time; t = time.process_time(); "
            "any(time.process_time() - t > 0.6 for _ in iter(int, 1))")
    subprocess.run([sys.executable, "-c", busy])
'''


def test_report_adds_up_modules_runtimes_and_kernels_under_xdist(tmp_path: Path) -> None:
    """Run a small suite on two pytest-xdist workers with this suite's conftest: does the JSON
    report give each module and runtime its tests and the kernels they started, both
    workers, and totals that add up?"""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text("from autograder.tests.conftest import *  # noqa\n")
    (suite / "test_small.py").write_text(_SUITE)
    out = tmp_path / "report.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-n", "2", "--dist", "loadgroup", "--rootdir", str(suite),
                           "-p", "autograder.tests.suite_report",
                           "--suite-report", str(out), str(suite)],
                          capture_output=True, text=True, cwd=suite, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "where the time went" in proc.stdout
    report = json.loads(out.read_text())
    areas = {(a["module"], a["runtime"]): a for a in report["areas"]}
    assert {k: (a["tests"], a["kernels"]) for k, a in areas.items()} == {
        ("test_small", "colab"): (1, 1), ("test_small", "newest"): (1, 1),
        ("test_small", "-"): (2, 0)}
    assert report["totals"]["kernels"] == 2 and report["outcomes"] == {"passed": 4}
    assert areas[("test_small", "colab")]["seconds"] >= 0.8
    # CPU: the busy child's 0.6 s is counted; the sleeping "kernels" used next to none.
    assert areas[("test_small", "-")]["cpu_seconds"] >= 0.5
    assert areas[("test_small", "colab")]["cpu_seconds"] < 0.5
    assert report["totals"]["cpu_seconds"] >= 0.5
    # The whole machine's busy time covers at least what the tests' processes counted.
    assert report["totals"]["machine_cpu_seconds"] >= report["totals"]["cpu_seconds"] * 0.9
    assert set(report["longest_groups"]) == {"test_small", "test_small:colab",
                                             "test_small:newest"}
    assert report["longest_groups"]["test_small:colab"] >= 0.8
    slowest = report["slowest_tests"]
    assert list(slowest.values()) == sorted(slowest.values(), reverse=True)
    assert min(v for t, v in slowest.items() if "test_starts_a_kernel[" in t) >= 0.8
    assert [t for t in slowest if t.endswith("test_burns_cpu")]
    assert report["totals"]["test_seconds"] <= report["totals"]["wall_seconds"] * 2
