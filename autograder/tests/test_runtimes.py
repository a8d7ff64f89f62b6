"""The course on the Python 3.13 runtimes learners have: Colab's and the newest JAX.

``make test`` builds both (``.ci/runtimes.py``: ``requirements-colab.txt`` and
``requirements-newest.txt``, each a Jupyter kernel in .venv) and sets ``LEARN_JAX_RUNTIMES``
(``tools colab newest``); a runtime it does not list is skipped. On each runtime: it holds its
file's versions with the course package installed as a notebook's first cell installs it;
every chapter executes (only cells tagged raises-exception fail, nothing is written to stderr:
no warning) and says it runs inside the tested range; autograder.kernel.compat's shims work;
every book page that runs code executes; and every exercise's reference answers pass with their
hidden tests, every stub fails, every wrong answer shows its ``# expect:`` message, as on the
pinned stack, and every failure is shown in a few lines with no frame of the course's.
Chapters also run on the tools' own runtime (``tools``: .venv, kernel ``python3``), whose
exercises test_exercises.py checks.
Each chapter and each exercise runs once per runtime (a chapter the book build just executed
on the newest JAX is read from the book's execution cache).
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from autograder.kernel import compat
from autograder.tests.conftest import KernelRuntime
from autograder.tests.harness_runs import (
    harness_report,
    long_or_course_failures,
    source_param,
)

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGES = sorted((ROOT / "book").glob("*.ipynb"))  # the book's own pages that run code
SOURCES = sorted((ROOT / "solutions").glob("*.ipynb"))

pytestmark = pytest.mark.runtimes


def execute(nb: nbformat.NotebookNode, kernel: str, cwd: Path, timeout: int = 300
            ) -> nbformat.NotebookNode:
    """Execute ``nb`` in place with nbclient on ``kernel`` (failing cells are recorded; the
    tests decide which may fail)."""
    from nbclient import NotebookClient

    NotebookClient(nb, kernel_name=kernel, timeout=timeout, allow_errors=True,
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def errors(cells: list) -> list[str]:
    """``"Class: message"`` of every error output of ``cells``."""
    return [f"{o.ename}: {o.evalue}" for c in cells if c.cell_type == "code"
            for o in c.get("outputs", []) if o.output_type == "error"]


BOOK_CACHE = ROOT / "_build" / ".jupyter_cache"  # _config.yml's execute: cache


def from_the_book(kernel: str, chapter: Path) -> nbformat.NotebookNode | None:
    """The book's own execution of ``chapter`` on ``kernel``, when the book's execution cache
    holds one for exactly this source (jupyter-cache's key covers the code cells and the
    kernel's name, which _config.yml sets to learn-jax-newest); None otherwise."""
    if not (BOOK_CACHE / "global.db").exists():
        return None
    from jupyter_cache import get_cache

    nb = nbformat.read(chapter, as_version=4)
    nb.metadata.setdefault("kernelspec", {})["name"] = kernel
    cache = get_cache(BOOK_CACHE)
    try:
        record = cache.match_cache_notebook(nb)
    except KeyError:
        return None
    return cache.get_cache_bundle(record.pk).nb


@functools.cache
def executed_chapter(kernel: str, chapter: Path) -> nbformat.NotebookNode:
    """``chapter`` executed on ``kernel`` once per test session, or once by ``make book`` (the
    book is executed on the newest JAX just before the tests; its run is not repeated)."""
    return (from_the_book(kernel, chapter)
            or execute(nbformat.read(chapter, as_version=4), kernel, chapter.parent))


def test_runtime_holds_its_versions(runtime: KernelRuntime) -> None:
    """Does the runtime run the Python its file names, with every package at its pinned
    version (jaxlib at JAX's), and the course package installed as a package (as the first
    cell installs it), not this checkout on the path?"""
    code = ("import importlib.metadata as m, json, pathlib, platform, autograder; "
            "print(json.dumps({'python': platform.python_version(), "
            "'where': pathlib.Path(autograder.__file__).parent.parent.name, "
            "'packages': {d.metadata['Name'].lower(): d.version for d in m.distributions()}}))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([runtime.python, "-c", code], cwd="/", env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    found = json.loads(out.stdout.splitlines()[-1])
    assert found["python"].rsplit(".", 1)[0] == runtime.python_version
    packages = {name.replace("_", "-"): v for name, v in found["packages"].items()}
    pins = dict(line.split("==") for line in runtime.pins)
    assert {p: packages.get(p.lower()) for p in pins} == pins
    assert packages["jaxlib"] == packages["jax"]
    assert packages["learn-jax-autograder"] and found["where"] == "site-packages"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_runs(any_runtime: KernelRuntime, chapter: Path) -> None:
    """On each runtime (the tools' Python 3.11 too), does the chapter execute with no error
    except in cells tagged raises-exception (each shown in at most 40 lines, none from inside
    a library), write nothing to stderr (no warning), and say which JAX it runs with no note
    about the tested range?"""
    runtime = any_runtime
    nb = executed_chapter(runtime.kernel, chapter)
    tagged = [c for c in nb.cells if "raises-exception" in c.metadata.get("tags", [])]
    assert errors([c for c in nb.cells if c not in tagged]) == []
    for cell in tagged:
        for out in cell.outputs:
            if out.output_type == "error":
                shown = "\n".join(out.traceback)
                assert len(shown.splitlines()) <= 40 and "site-packages" not in shown, shown
    stderr = [o.text for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.output_type == "stream" and o.name == "stderr"]
    assert stderr == []
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []))
    assert f"JAX {runtime.pinned('jax')} on CPU" in printed and "Note: JAX" not in printed


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_book_page_runs(any_runtime: KernelRuntime, page: Path) -> None:
    """On each runtime, does each book page that runs code (tools, what next, reading older
    code) execute without an error, and print the JAX version it ran on?"""
    nb = executed_chapter(any_runtime.kernel, page)
    assert errors(nb.cells) == []
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []))
    assert f"JAX {any_runtime.pinned('jax')}" in printed


# Chapter 13's last cells run the capstone's step with these libraries (package: the name each
# cell prints), and What next's training step with Optax.
LIBRARIES = {"optax": "Optax", "flax": "Flax", "equinox": "Equinox"}
CAPSTONE = ROOT / "notebooks" / "13_capstone.ipynb"


def _printed(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []))


def test_library_cells_run_with_the_pinned_versions(any_runtime: KernelRuntime) -> None:
    """Do chapter 13's Optax, Flax NNX and Equinox cells run their training steps, printing the
    version the runtime's file pins (on the newest runtime all three; on Colab's, Optax and
    Flax 0.11.2), and where a library is not pinned (so not installed), does its cell say in
    one line which release to install and run nothing? Does What next's Optax step run with
    the pinned Optax?"""
    runtime = any_runtime
    jax_version = runtime.pinned("jax")
    if runtime.name == "newest":  # the book's runtime runs all three: none may go stale
        pinned = {line.partition("==")[0].lower() for line in runtime.pins}
        assert set(LIBRARIES) <= pinned, f"{runtime.requirements} must pin {sorted(LIBRARIES)}"
    nb = executed_chapter(runtime.kernel, CAPSTONE)
    for package, name in LIBRARIES.items():
        marker = (f'optional_library("{package}")' if package != "optax"
                  else "import optax")
        (cell,) = [c for c in nb.cells if c.cell_type == "code" and marker in c.source]
        printed = _printed(cell)
        assert errors([cell]) == [], (package, errors([cell]))
        try:
            version = runtime.pinned(package)
        except KeyError:
            version = None
        if version:
            assert f"{name} {version} on JAX {jax_version}" in printed, (package, printed)
            assert "after 5 steps" in printed or "loss over five steps" in printed, printed
        else:
            assert len(printed.strip().splitlines()) == 1, printed  # and nothing ran
            assert f"{name} is not installed here" in printed, printed
            assert f"pip install {package}==" in printed, printed
    page = executed_chapter(runtime.kernel, ROOT / "book" / "what_next.ipynb")
    # any cell: the book's execution cache may keep the page's cells in another split
    assert any(f"JAX {jax_version}, Optax {runtime.pinned('optax')}" in _printed(cell)
               for cell in page.cells if cell.cell_type == "code")


def test_compat_on_runtime(runtime: KernelRuntime) -> None:
    """Do autograder.kernel.compat's shims (nested jaxprs, scoped x64, reshard, the tested range)
    pass their tests on the runtime's JAX, as on the pinned one?"""
    from autograder.tests import test_compat

    code = ("from autograder.tests import test_compat as t\n"
            "for name in dir(t):\n"
            "    if name.startswith('test_'):\n"
            "        getattr(t, name)(); print('ok', name)\n")
    count = sum(name.startswith("test_") for name in dir(test_compat))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([runtime.python, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("ok ") == count >= 5


# Wrong answers that some JAX versions stop before the test's own check, with its own error,
# so the learner reads another (still helpful) message there: (source stem, case) -> the
# oldest JAX that does, and why. The `# expect:` text shows on every version all the same.
CAUGHT_EARLIER = {
    ("04_prng", "q4_random_walk__draws_with_kept_key"): (
        (0, 12), "JAX 0.12's key-reuse checker sees the key drawn with and then split again "
        "in the next step of the scan (a KeyReuseError and the scan hint); 0.10 and older "
        "let it through to the value check, whose mistake message names it"),
}
# The reverse: wrong answers that the pinned JAX stops early with its own error while an older
# one lets them through to the test's own check: (source stem, case) -> the oldest JAX that
# stops it, and why. There too the `# expect:` text shows on every version.
CAUGHT_LATER_BEFORE = {
    ("12_shard_map", "q1_fsdp_sgd_step__unplaced_first_w"): (
        (0, 10), "JAX 0.10 and later refuse the unplaced NumPy w at the call (shard_map's "
        "in_specs on explicit axes; a ValueError and the test's advice), while Colab's 0.7.2 "
        "takes it and compiles the loop's second step again, which the compile count names"),
}
# Wrong answers whose message names what this runtime's JAX takes, so that it differs between
# versions by design (a name that exists on one version only): (source stem, case) -> the text
# the message must hold on a JAX of that version (the spelling that works there).
SPELLED_PER_VERSION = {
    ("12_shard_map", "q3_smooth_sequences__other_version_collective"):
        lambda version: "jax.lax.pvary(x, axis_name)" if version < (0, 8, 2)
        else 'jax.lax.pcast(x, axis_name, to="varying")',
}


def stopped_by_its_own_error(runtime: KernelRuntime, stem: str, case: str) -> bool:
    """Whether ``runtime``'s JAX stops the wrong answer ``case`` of source ``stem`` with its own
    error, not the test's check the pinned JAX reaches (CAUGHT_EARLIER, CAUGHT_LATER_BEFORE)."""
    version = compat.version_tuple(runtime.pinned("jax"))
    earlier = CAUGHT_EARLIER.get((stem, case))
    later = CAUGHT_LATER_BEFORE.get((stem, case))
    return bool(earlier and version >= earlier[0]) or bool(later and version < later[0])


# A source whose tests time answers is marked `timing` (its speedup checks run).
@pytest.mark.parametrize("source", [source_param(p) for p in SOURCES])
def test_exercise_on_runtime(runtime: KernelRuntime, source: Path) -> None:
    """On the runtime, does every reference answer pass with its hidden tests, every stub fail
    (zero), every wrong answer fail with the course's message seen on the pinned stack (but
    for the few a newer JAX catches earlier, CAUGHT_EARLIER, or an older one later,
    CAUGHT_LATER_BEFORE, and those that name the spelling this JAX takes,
    SPELLED_PER_VERSION), and show the text its `# expect:` line names?"""
    pinned = harness_report(source)
    report = harness_report(source, runtime.python)
    assert report["errors"] == []
    questions = report["questions"]
    assert sorted(questions) == sorted(pinned["questions"])
    assert {q: e["reference"] for q, e in questions.items()} == {q: "passed" for q in questions}
    assert [q for q, e in questions.items() if "should fail" in e["stub"]] == []
    for q, entry in questions.items():
        # `wrong` is the course's message (the test's own, and hints in place of JAX's text,
        # which differs between versions); `seen` is everything the learner sees.
        for case, message in entry["wrong"].items():
            if stopped_by_its_own_error(runtime, source.stem, case):
                continue
            spelled = SPELLED_PER_VERSION.get((source.stem, case))
            if spelled:
                assert spelled(compat.version_tuple(runtime.pinned("jax"))) in message, (
                    q, case, message)
                continue
            assert message == pinned["questions"][q]["wrong"][case], (q, case)
        assert len(entry["expect"]) >= 2, q
        for case, expect in entry["expect"].items():
            assert expect and expect in entry["seen"][case], (q, case, entry["seen"][case])
    # every failure as this runtime's IPython shows it: a few lines, no frame of the course's
    assert long_or_course_failures(report) == {}


def test_runtimes_kernels_are_registered_with_their_versions(runtime: KernelRuntime) -> None:
    """Does the runtime's kernelspec (what Jupyter, nbgrader and the book start) carry the
    versions it was built with, matching its requirements file?"""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(runtime.kernel)
    recorded = spec.metadata["learn_jax"]["versions"]
    assert recorded["jax"] == runtime.pinned("jax")
    assert re.fullmatch(re.escape(runtime.python_version) + r"\.\d+", recorded["python"])
