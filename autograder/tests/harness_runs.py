"""Run the exercise harness once per (runtime, source) in a test run and share the report.

``test_exercises.py``, ``test_compile_audit.py``, ``test_hint_corpus.py`` and
``test_runtimes.py`` all read one source's harness report on a runtime. The report is kept in
the run's reference cache (``$LEARN_JAX_REFERENCE_CACHE``, one folder per ``make test`` or
pytest session, :mod:`autograder.tests.conftest`), keyed by the digest of what it depends on
(the source, its wrong-answer fixtures, the course package with its tests, the runtime's
Python), so each is made once per run even when pytest-xdist puts its readers on two workers:
the first worker to ask holds a lock on the key while it runs the harness; the other waits
for the report instead of running it again.

Within a run, every harness process of one runtime also shares a JAX compilation cache of its
own (:func:`compilation_cache_env`): the test cells build the same helper programs for the
reference, the stub and every wrong answer, and each would otherwise be compiled again by XLA.
That folder holds reference answers and hidden tests, so it is never the grader's shared
cache, which sandboxed kernels read (:mod:`autograder.grader.compile_cache`): only these
trusted test processes use it. A cached executable is the one XLA compiled, so every value,
message and count a report holds is what a fresh compile gives (compile counts and the
compile audit see the program before the cache is consulted).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.tests.suite_report import note_checks

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "autograder"
WRONG_ANSWERS = Path(__file__).parent / "wrong_answers"


def harness_report(source: Path, python: str = sys.executable) -> dict:
    """The harness's JSON report for ``source`` run by ``python`` (from the source's folder),
    made once per run and runtime (:func:`_shared_report`).

    The repository is put on ``PYTHONPATH`` so an interpreter whose site-packages hold an
    installed copy of the course package runs this checkout's harness and fixtures.
    """
    return _shared_report(Path(source).resolve(), runtime_named(python), python)


@functools.cache
def _package_digest() -> str:
    """A digest of every Python file of the course package, its tests and fixtures included
    (the harness runs them), read once per process."""
    from autograder.grader.judging.reference_run import code_digest

    return code_digest(PACKAGE, tests=True)


def harness_key(source: Path, runtime: str, python: str) -> str:
    """What a harness report of ``source`` depends on, as a digest: the source's bytes, its
    wrong-answer fixtures, the course package and the runtime (its name and Python)."""
    digest = hashlib.sha256(f"{runtime}\0{python}\0{_package_digest()}\0".encode())
    digest.update(source.read_bytes())
    for path in sorted((WRONG_ANSWERS / source.stem).glob("*")):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:24]


@contextlib.contextmanager
def _held(lock: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``lock`` (made when missing) while inside."""
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@functools.cache
def _shared_report(source: Path, runtime: str, python: str) -> dict:
    """The report of ``source`` on ``runtime``: read from the run's reference cache when a
    worker made it already, else made here (under the key's lock) and kept there."""
    from autograder.grader.grade import reference_cache_default

    cache = reference_cache_default()
    if cache is None:
        return _run_harness(source, runtime, python)
    folder = cache / "harness"
    folder.mkdir(parents=True, exist_ok=True)
    key = f"{source.stem}-{runtime}-{harness_key(source, runtime, python)}"
    kept = folder / f"{key}.json"
    with _held(folder / f"{key}.lock"):
        if kept.exists():
            return json.loads(kept.read_text())
        report = _run_harness(source, runtime, python,
                              compilation_cache_env(cache / "harness-compiled" / runtime))
        partial = kept.with_suffix(".part")
        partial.write_text(json.dumps(report))
        partial.replace(kept)
    return report


def compilation_cache_env(folder: Path) -> dict[str, str]:
    """JAX's settings for a trusted test process that reads and writes the compilation cache
    ``folder`` (made here): every program is kept, however small or quick to compile."""
    folder.mkdir(parents=True, exist_ok=True)
    return {"JAX_COMPILATION_CACHE_DIR": str(folder),
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1"}


def _run_harness(source: Path, runtime: str, python: str,
                 compiled: dict[str, str] | None = None) -> dict:
    """Run the harness on ``source`` with ``python`` (with the JAX compilation-cache settings
    ``compiled``, else none); its report (the checks it ran are noted for the suite report,
    under ``runtime``)."""
    from autograder.grader.compile_cache import without_cache_settings

    env = dict(without_cache_settings(dict(os.environ)), **(compiled or {}),
               PYTHONPATH=os.pathsep.join(
                   p for p in [str(ROOT), os.environ.get("PYTHONPATH")] if p))
    proc = subprocess.run(
        [python, "-m", "autograder.tests.exercise_harness", str(source)],
        capture_output=True, text=True, cwd=source.parent, timeout=600, env=env,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("HARNESS-JSON ")]
    assert lines, f"harness printed no report:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    report = json.loads(lines[-1][len("HARNESS-JSON "):])
    note_checks({"runtime": runtime, "source": source.stem,
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
    test); any other runs in a group of its own, ``exercise:<stem>``, so that its reports
    on every runtime are read on one worker, one after another."""
    from autograder.tests.conftest import group_name

    marks = (pytest.mark.timing if times_answers(source)
             else pytest.mark.xdist_group(group_name("exercise", source.stem)))
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
