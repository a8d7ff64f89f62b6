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

# A small suite scheduled by this suite's own grouping hook: in each module, one test marked
# timing and three that are not, so that a scheduler ignoring the groups spreads them.
_MODULE = '''
import time

import pytest


@pytest.mark.timing
def test_timed():
    time.sleep(0.2)


@pytest.mark.parametrize("n", range(3))
def test_plain(n):
    time.sleep(0.2)


@pytest.mark.xdist_group("exercise:06_jit")
@pytest.mark.parametrize("n", range(2))
def test_exercise(n):
    time.sleep(0.2)
'''
# A module whose tests run on kernel runtimes: one group per runtime (module:runtime).
_ON_RUNTIMES = '''
import time

import pytest


@pytest.mark.parametrize("runtime", ["colab", "newest"])
@pytest.mark.parametrize("n", range(3))
def test_on(runtime, n):
    time.sleep(0.2)
'''


def _workers(*args: str, cwd: Path = ROOT) -> dict[str, set[str]]:
    """Run pytest on two xdist workers with ``args`` in ``cwd``: group -> the workers its
    tests ran on (from the verbose report, whose test ids carry the ``@group`` xdist
    scheduled by)."""
    import os

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup",
                           "-v", "-p", "no:cacheprovider", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    ran = collections.defaultdict(set)
    for line in proc.stdout.splitlines():
        found = _RAN.match(line)
        if found:
            ran[found.group(3)].add(found.group(1))
    return dict(ran)


def _suite(tmp_path: Path) -> Path:
    """Three modules and a conftest.py that takes this suite's grouping hook."""
    (tmp_path / "conftest.py").write_text(
        "from autograder.tests.conftest import pytest_collection_modifyitems  # noqa: F401\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    timing: timed\n")
    for name in ("test_one", "test_two", "test_three"):
        (tmp_path / f"{name}.py").write_text(_MODULE)
    (tmp_path / "test_four.py").write_text(_ON_RUNTIMES)
    return tmp_path


def test_groups_are_what_xdist_schedules(tmp_path: Path) -> None:
    """Run by pytest-xdist (the versions requirements.txt pins), is each module's group of
    plain tests on one worker, each runtime's tests of a module on one worker, one named
    group from three modules on one worker, and every test marked ``timing``, from all three
    modules, in one group on one worker, so that no two timing-sensitive tests ever run side
    by side?"""
    ran = _workers(str(_suite(tmp_path)), cwd=tmp_path)
    assert set(ran) == {"test_one", "test_two", "test_three", "timing", "exercise:06_jit",
                        "test_four:colab", "test_four:newest"}, ran
    assert all(len(workers) == 1 for workers in ran.values()), ran


def test_every_group_name_is_one_xdist_reads() -> None:
    """Does pytest-xdist's loadgroup scheduler read back, from a parametrized test's id, each
    group name this suite makes (a module's, a module's on a runtime, an exercise's), and is
    a name it would not read (ending in ``]``: each test scheduled alone) refused?"""
    import pytest
    from xdist.scheduler.loadgroup import LoadGroupScheduling

    from autograder.tests.conftest import TIMING_GROUP, group_name
    from autograder.tests.harness_runs import source_param

    split = LoadGroupScheduling._split_scope
    names = [TIMING_GROUP, "test_runtimes", group_name("test_runtimes", "colab"),
             *(mark.args[0] for mark in source_param(ROOT / "solutions" / "01_arrays.ipynb")
               .marks if mark.name == "xdist_group")]
    assert len(names) == 4
    for name in names:
        assert split(None, f"t.py::test_x[colab-01_arrays]@{name}") == name
    assert split(None, "t.py::test_x[colab]@test_x[colab]") != "test_x[colab]"
    with pytest.raises(ValueError, match="brackets"):
        group_name("exercise[01_arrays]")


def test_the_real_suite_keeps_a_module_on_one_worker() -> None:
    """In this suite itself, are a cheap module's tests scheduled as one group?"""
    ran = _workers("autograder/tests/test_layout.py", "autograder/tests/test_progress.py")
    assert set(ran) == {"test_layout", "test_progress"}, ran
    assert all(len(workers) == 1 for workers in ran.values()), ran


def test_chapter_option_keeps_the_tests_that_name_the_chapter() -> None:
    """Does ``--chapter 06`` keep a test whose parameters name 06_jit (its notebook, exercise
    source, wrong-answer folder, on any runtime) and drop one naming another chapter or none,
    and is an unknown chapter a usage error naming the chapters?"""
    import pytest

    from autograder.tests.conftest import about_chapter, chapter_stem

    assert chapter_stem("06") == chapter_stem("6") == chapter_stem("06_jit") == "06_jit"
    kept = ["t.py::test_chapter_runs[colab-06_jit]", "t.py::test_x[notebooks/06_jit]",
            "t.py::test_released[06_jit]@exercise:06_jit", "t.py::test_y[06_jit.ipynb]"]
    dropped = ["t.py::test_chapter_runs[colab-08_performance]", "t.py::test_layout",
               "t.py::test_z[newest]", "t.py::test_w[05_jitter]"]
    assert [about_chapter(n, "06_jit") for n in kept] == [True] * len(kept)
    assert [about_chapter(n, "06_jit") for n in dropped] == [False] * len(dropped)
    with pytest.raises(pytest.UsageError, match="01_arrays"):
        chapter_stem("99")
