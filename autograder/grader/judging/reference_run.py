"""The trusted run: a course source notebook executed here, its checks recorded.

The grader needs, check by check, what the reference answers return; a released exercise
needs the same for its visible checks. Both come from running the source notebook (answers
and tests) as plain Python in a fresh process of the grader's own environment, never in a
student's kernel, with every check publishing its entry
(:func:`autograder.kernel.reporter.collecting`) instead of deciding. Timing tests record their
rule and time nothing.

Grading runs it on the runtime that grades the submission
(:mod:`autograder.grader.runtime_choice`): the grader's own Python, or a built runtime's (Colab's
JAX, the newest), whose command enters that runtime's system root; one trusted run per
assignment and runtime, kept under a name and fingerprint that include the runtime.

Usage: ``python -m autograder.grader.judging.reference_run solutions/06_jit.ipynb OUT.json``
(a fresh process, so a chapter that simulates eight CPU devices sets XLA's flags before JAX starts).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import io
import json
import linecache
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autograder.core.evidence import Entry

if TYPE_CHECKING:
    from autograder.grader.runtime_choice import Runtime

HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"
RUN_TIMEOUT = 900  # seconds for one source notebook (they take 5 to 60 s)


@dataclass
class Outcome:
    """How running some code ended: the exception (None on success) and what it printed."""

    exc: BaseException | None
    printed: str


def run_code(code: str, ns: dict, name: str) -> Outcome:
    """Execute ``code`` in ``ns`` from a seeded state, as IPython would (its lines in
    ``linecache`` for tracebacks); return how it ended."""
    import numpy as np

    if name not in linecache.cache or linecache.cache[name][2] != code.splitlines(True):
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    np.random.seed(0)
    random.seed(0)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, name, "exec"), ns)
    except BaseException as exc:  # noqa: BLE001 - SystemExit from a bad answer counts too
        return Outcome(exc, out.getvalue())
    return Outcome(None, out.getvalue())


def split_hidden(code: str) -> list[tuple[str, bool]]:
    """A test cell's parts in order, each with whether it is hidden: the code before the
    hidden tests, the hidden tests (to their end marker), and any code after them."""
    start = code.find(HIDDEN_BEGIN)
    if start < 0:
        return [(code, False)]
    end = code.find(HIDDEN_END, start)
    end = len(code) if end < 0 else code.find("\n", end) + 1 or len(code)
    parts = [(code[:start], False), (code[start:end], True), (code[end:], False)]
    return [(part, hidden) for part, hidden in parts if part.strip()]


def secret_code(stem: str) -> Callable[[str], bool]:
    """Whether a code name given by :func:`record` for notebook ``stem`` is an answer cell
    or hidden tests (what the compilation cache must not hold)."""
    prefixes = (f"<{stem} answer ", f"<{stem} hidden tests ")
    return lambda name: name.startswith(prefixes)


def record(path: Path, compile_cache: bool = False) -> dict[str, Any]:
    """Run the source notebook ``path`` here; return its test cells' entries and any errors.

    With ``compile_cache``, the programs it compiles that neither an answer nor a hidden test
    produced go to JAX's compilation cache (:func:`autograder.grader.compile_cache.recording`; the
    caller sets the cache's directory before JAX is imported). Writing starts with the cell
    after the one that imports JAX: what that cell compiles is not cached.

    Returns:
        ``{"tests": {test id: [entry, ...]}, "errors": [...], "environment": {...}}``;
        entries as JSON, those of a hidden part marked ``hidden``; the environment is
        :func:`environment`'s, of this run.
    """
    import matplotlib

    matplotlib.use("Agg")
    import nbformat

    from autograder.grader.compile_cache import recording, watching_answers

    nb = nbformat.read(path, as_version=4)
    tests: dict[str, list[dict]] = {}
    errors: list[str] = []
    ns: dict = {"__name__": "__main__"}
    secret = secret_code(path.stem)
    watching = False
    with contextlib.ExitStack() as cache_filter:
        for i, cell in enumerate(nb.cells):
            if compile_cache and "jax" in sys.modules:  # the filter, once JAX is imported
                cache_filter.enter_context(recording(secret))
                compile_cache, watching = False, True
            if cell.cell_type == "code":
                # Each cell's programs count as public only until answer code runs in it.
                with watching_answers(secret) if watching else contextlib.nullcontext():
                    _record_cell(path.stem, i, cell, ns, tests, errors)
    return {"tests": tests, "errors": errors, "environment": environment()}


def environment() -> dict[str, Any]:
    """JAX's version, backend and devices in this process (JAX imported, if not yet)."""
    try:
        import jax

        return {"jax": jax.__version__, "backend": jax.default_backend(),
                "devices": [str(d) for d in jax.devices()]}
    except Exception as exc:  # noqa: BLE001
        return {"error": str(exc)}


def _record_cell(stem: str, i: int, cell: Any, ns: dict, tests: dict[str, list[dict]],
                 errors: list[str]) -> None:
    """Run code cell ``i`` of the source notebook ``stem`` in ``ns``; a test cell's entries
    go to ``tests``, failures to ``errors``."""
    from autograder.core.notebook import code_of, is_answer, is_test, nbgrader_meta
    from autograder.grader.judging.verdict import reference_failure
    from autograder.kernel.hints import first_line
    from autograder.kernel.reporter import collecting

    code = code_of(cell)
    if not is_test(cell):
        name = (f"<{stem} answer {nbgrader_meta(cell)['grade_id']}>" if is_answer(cell)
                else f"<{stem} cell {i}>")
        result = run_code(code, ns, name)
        if result.exc is not None:
            errors.append(f"cell {i} failed: {first_line(result.exc)}")
        return
    gid = nbgrader_meta(cell)["grade_id"]
    entries: list[Entry] = []
    for part, hidden in split_hidden(code):
        seen: list[Entry] = []
        with collecting(seen.append, recording=True):
            result = run_code(part, ns, f"<{stem} {'hidden ' * hidden}tests {gid}>")
        if result.exc is not None:
            errors.append(f"test cell {gid} failed on the reference answer: "
                          f"{first_line(result.exc)}")
        for entry in seen:
            entry.hidden = hidden
            why = reference_failure(entry)
            if why:
                errors.append(f"test cell {gid}: the reference answer fails {entry.name}: "
                              f"{why}")
        entries += seen
    tests[gid] = [e.to_json() for e in entries]


def records_in(report: dict[str, Any]) -> dict[str, list[Entry]]:
    """Test id -> the trusted records of a :func:`record` report."""
    from autograder.grader.judging.verdict import record_of

    return {gid: [record_of(Entry.from_json(e)) for e in entries]
            for gid, entries in report["tests"].items()}


def code_digest(package: Path, tests: bool = False) -> str:
    """A digest of the Python files of ``package``, its ``tests/`` left out unless ``tests``."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if tests or not relative.startswith("tests/"):
            digest.update(relative.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def grader_digest() -> str:
    """The digest of the grader's own code (this package): records kept across runs
    (``grade --reference-cache``) are made again when it changes."""
    return code_digest(Path(__file__).resolve().parents[1])


def _other(runtime: Runtime | None) -> Runtime | None:
    """``runtime`` when it is a built runtime (not the grader's own Python), else None."""
    return runtime if runtime is not None and runtime.venv is not None else None


def fingerprint(path: Path, runtime: Runtime | None = None) -> str:
    """What the records of ``path`` depend on: its bytes, Python, JAX, jaxlib, NumPy (this
    Python's, or those of ``runtime``, a built runtime, and its name), the backend kernels use
    and the grader's code."""
    import importlib.metadata as md

    from autograder.grader.compile_cache import label  # JAX's and jaxlib's versions, the backend

    other = _other(runtime)
    if other is not None:
        python, numpy = other.versions.get("python", "?"), other.versions.get("numpy", "none")
        versions = [other.name, python, label(other.versions)]
    else:
        try:
            numpy = md.version("numpy")
        except md.PackageNotFoundError:
            numpy = "none"
        versions = [sys.version.split()[0], label()]
    parts = [hashlib.sha256(path.read_bytes()).hexdigest(), *versions,
             f"numpy={numpy}", os.environ.get("JAX_PLATFORMS", ""), grader_digest()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def record_file(path: Path, cache: Path, runtime: Runtime | None = None) -> Path:
    """Where the trusted run of ``path`` (on ``runtime``) is kept in ``cache``: named for the
    source, the runtime (a built one's name; none for the grader's own) and the fingerprint."""
    other = _other(runtime)
    middle = f"-{other.name}" if other is not None else ""
    return cache / f"{path.stem}{middle}-{fingerprint(path, runtime)}.json"


def compiled_programs(cache: Path, runtime: Runtime | None = None) -> Path:
    """The shared compilation cache that trusted runs recording into ``cache`` fill (on
    ``runtime``: each runtime's JAX has a folder of its own)."""
    from autograder.grader.compile_cache import shared_dir

    other = _other(runtime)
    return shared_dir(cache / "compiled", other.versions if other is not None else None)


@contextlib.contextmanager
def _package_path(runtime: Runtime | None) -> Iterator[str]:
    """The ``PYTHONPATH`` entry that makes a trusted run import this very grader's package.

    For the grader's own Python, the folder that holds the package. Another runtime must see
    the package alone: that folder may be the grader's ``site-packages``, whose packages
    are built for another Python; it gets a fresh folder holding only a link to it."""
    package = Path(__file__).resolve().parents[1]
    if _other(runtime) is None:
        yield str(package.parent)
        return
    with tempfile.TemporaryDirectory(prefix="learn-jax-package-") as folder:
        (Path(folder) / package.name).symlink_to(package, target_is_directory=True)
        yield folder


def _run_reference(path: Path, python: str, compiled: Path | None = None,
                   runtime: Runtime | None = None) -> dict[str, Any]:
    """The report of one trusted run of ``path`` in a fresh process (of ``python``, or of
    ``runtime``'s command when it is a built runtime); with ``compiled``, the programs it may
    share are published there once it succeeded."""
    with _package_path(runtime) as package_root:
        other = _other(runtime)
        return _run_reference_in(path, other.python if other else python, package_root,
                                 compiled)


def _run_reference_in(path: Path, python: str, package_root: str,
                      compiled: Path | None) -> dict[str, Any]:
    from autograder.grader.compile_cache import publish, without_cache_settings, writer_env

    handle, name = tempfile.mkstemp(prefix="learn-jax-record-", suffix=".json")
    os.close(handle)
    out = Path(name)
    private = Path(tempfile.mkdtemp(prefix="learn-jax-compiled-")) if compiled else None
    env = dict(without_cache_settings(dict(os.environ)), PYTHONPATH=os.pathsep.join(
        p for p in [package_root, os.environ.get("PYTHONPATH")] if p))
    if private:
        env.update(writer_env(private))
    try:
        proc = subprocess.run([python, "-m", "autograder.grader.judging.reference_run",
                               str(path.resolve()), str(out)],
                              capture_output=True, text=True, cwd=path.parent, env=env,
                              timeout=RUN_TIMEOUT)
        if proc.returncode != 0 or not out.stat().st_size:
            raise RuntimeError(f"the trusted run of {path.name} failed:\n{proc.stderr[-3000:]}")
        report = json.loads(out.read_text())
        if report["errors"]:
            raise RuntimeError(f"the reference answers of {path.name} do not pass their tests: "
                               + "; ".join(report["errors"][:5]))
        if private and compiled:
            publish(private, compiled)
    finally:
        out.unlink(missing_ok=True)
        if private:
            shutil.rmtree(private, ignore_errors=True)
    return report


def recorded_environment(path: Path, cache: Path, runtime: Runtime | None = None
                         ) -> dict[str, Any] | None:
    """The environment the trusted run of ``path`` (on ``runtime``) kept in ``cache`` ran
    in: the JAX that grading's kernels run (same Python, JAX, jaxlib and backend, the
    fingerprint says); None when no such run is kept there (or it predates the field)."""
    try:
        report = json.loads(record_file(path, cache, runtime).read_text())
    except (OSError, ValueError):
        return None
    found = report.get("environment") if isinstance(report, dict) else None
    return found if isinstance(found, dict) and found else None


def trusted_records(path: Path, cache: Path | None = None, python: str = sys.executable,
                    runtime: Runtime | None = None) -> dict[str, list[Entry]]:
    """The trusted records of the source ``path``, run in a fresh process of ``python``, or
    on ``runtime`` (a :class:`~autograder.grader.runtime_choice.Runtime`; a built one runs its
    own Python), cached in :func:`record_file` when ``cache`` is given; the run then also
    fills that runtime's shared compilation cache, :func:`compiled_programs`.

    With a cache, one process runs the reference and any other that asks meanwhile (another
    grading job, the grader's background recorder) waits for its file instead of running it
    again.

    Raises:
        RuntimeError: when the reference answers do not run or fail their own checks (a
            course bug: nothing could be graded fairly).
    """
    if cache is None:
        return records_in(_run_reference(path, python, runtime=runtime))
    target = record_file(path, cache, runtime)
    cache.mkdir(parents=True, exist_ok=True)
    with open(target.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not target.exists():
            report = _run_reference(path, python, compiled_programs(cache, runtime), runtime)
            partial = target.with_suffix(f".{os.getpid()}.tmp")  # whole, then renamed
            partial.write_text(json.dumps(report))
            os.replace(partial, target)
        return records_in(json.loads(target.read_text()))


if __name__ == "__main__":
    source, dest = Path(sys.argv[1]), Path(sys.argv[2])
    # The parent asks for the compilation cache by naming its directory (compile_cache).
    recorded = record(source.resolve(), "JAX_COMPILATION_CACHE_DIR" in os.environ)
    dest.write_text(json.dumps(recorded))
