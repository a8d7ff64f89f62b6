"""The JAX compilation cache that grading shares: filled by the trusted run, read-only to kernels.

Every submission of an assignment compiles mostly the same programs: the notebook's own set-up
cells, the inputs its test cells build, the checks' own arithmetic. The trusted run
(:mod:`autograder.grader.judging.reference_run`) compiles them first; this module keeps what it
compiled in a directory per JAX version, jaxlib version and backend (:func:`shared_dir`), and the
sandboxed kernels (:mod:`autograder.grader.sandbox`) mount that directory **read-only**, so a
submission never writes an entry another one would load.

The trusted run also compiles the reference answers and the hidden tests. Those programs are
solutions (an executable's HLO is the reference's arithmetic) and must never reach a
submission's kernel: :func:`recording` writes an entry only when neither an answer cell's nor
a hidden test's code is in the program's source locations or on the Python stack that
compiles it (:func:`tainted`), and, within a cell, only until answer code first runs
(:func:`watching_answers`: a function an answer returned may compile from library code
alone). What is cached was compiled from code every student already
has: the released notebook's own cells and visible tests, and this package.

An entry is written by the trusted run into a directory of its own, and moved into the shared
one only when that run succeeded (:func:`publish`), one file at a time by rename: a kernel
never reads half a file.
"""

from __future__ import annotations

import contextlib
import importlib.metadata as md
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# Settings of the kernels that read the cache: compile as usual, write nothing, and keep XLA's
# own caches (GPU autotuning results) out of the read-only directory.
READER_SETTINGS = {"JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "1e9",
                   "JAX_PERSISTENT_CACHE_ENABLE_XLA_CACHES": "none"}
_CACHE_ENV = re.compile(r"^JAX_(COMPILATION_CACHE|PERSISTENT_CACHE)")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def backend_label() -> str:
    """The backend kernels will use, without importing JAX: ``cpu``, ``gpu`` or ``tpu``.

    ``JAX_PLATFORMS`` decides where it is set; else an accelerator found by
    :func:`autograder.kernel.runtime.accelerator_count` with JAX's CUDA or ROCm plugin installed
    means ``gpu``, with libtpu ``tpu``.
    """
    from autograder.kernel.runtime import accelerator_count

    forced = os.environ.get("JAX_PLATFORMS", "").split(",")[0].strip().lower()
    if forced:
        return "gpu" if forced in ("cuda", "rocm", "gpu") else forced
    if not accelerator_count():
        return "cpu"
    plugins = " ".join(d.metadata["Name"].lower() for d in md.distributions()
                       if d.metadata["Name"])
    if "cuda" in plugins or "rocm" in plugins:
        return "gpu"
    return "tpu" if "libtpu" in plugins else "cpu"


def label(found: dict[str, str] | None = None) -> str:
    """``jax-<version>-jaxlib-<version>-<backend>``: what the cache's entries are valid for;
    the versions are this Python's, or those in ``found`` (another runtime's, as its
    kernelspec records them: each runtime has a cache of its own)."""
    versions = []
    for dist in ("jax", "jaxlib"):
        if found is not None:
            versions.append(f"{dist}-{found.get(dist, 'none')}")
            continue
        try:
            versions.append(f"{dist}-{md.version(dist)}")
        except md.PackageNotFoundError:
            versions.append(f"{dist}-none")
    return "-".join([*versions, backend_label()])


def shared_dir(root: Path, found: dict[str, str] | None = None) -> Path:
    """The shared cache under ``root`` for this JAX, jaxlib and backend, or those of another
    runtime's versions ``found`` (created, readable by the kernels' user, written only by
    :func:`publish`)."""
    path = root / label(found)
    path.mkdir(parents=True, exist_ok=True)
    for directory in (root, path):
        directory.chmod(0o755)
    return path


def without_cache_settings(env: dict[str, str]) -> dict[str, str]:
    """``env`` without any JAX compilation-cache setting (the kernels get only the grader's)."""
    return {k: v for k, v in env.items() if not _CACHE_ENV.match(k)}


def reader_env(shared: Path) -> dict[str, str]:
    """The JAX settings of a kernel that reads ``shared`` (which it sees read-only)."""
    return {"JAX_COMPILATION_CACHE_DIR": str(shared), **READER_SETTINGS}


def writer_env(private: Path) -> dict[str, str]:
    """The settings of a trusted run that records into ``private``: JAX starts with writing
    off; :func:`recording` turns it on once its filter is in place."""
    return {"JAX_COMPILATION_CACHE_DIR": str(private), **READER_SETTINGS,
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "-1"}


def publish(private: Path, shared: Path) -> int:
    """Move the entries the trusted run wrote in ``private`` into ``shared``; return how many
    are new there. Each arrives whole (written beside it, then renamed), readable by all."""
    if not private.is_dir():
        return 0
    moved = 0
    for entry in sorted(private.iterdir()):
        if not entry.is_file() or entry.is_symlink() or not _SAFE_NAME.match(entry.name):
            continue
        target = shared / entry.name
        if target.exists():
            continue
        partial = shared / f".{entry.name}.{os.getpid()}.partial"
        partial.write_bytes(entry.read_bytes())
        partial.chmod(0o644)
        os.replace(partial, target)
        moved += 1
    return moved


# ------------------------------------------------------------------ inside the trusted run

_state = threading.local()


def tainted(module_text: str, stack: list[str], secret: Callable[[str], bool]) -> bool:
    """Whether a program may hold secret code: a file on ``stack`` for which ``secret`` holds,
    or such a name among the string literals of ``module_text`` (the program printed with its
    debug information, whose source locations, in every form MLIR prints them, are strings)."""
    if any(secret(name) for name in stack):
        return True
    return any(secret(name) for name in re.findall(r'"((?:[^"\\]|\\.)*)"', module_text))


def _stack_files() -> list[str]:
    frame, files = sys._getframe(1), []
    while frame is not None:
        files.append(frame.f_code.co_filename)
        frame = frame.f_back
    return files


@contextlib.contextmanager
def watching_answers(secret: Callable[[str], bool]) -> Iterator[None]:
    """Within the block (one cell of the trusted run), once any code for which ``secret``
    holds has run (an answer called, directly or through a function it returned), every
    program compiled later in the block is tainted: a function an answer *returned* (such as
    ``jax.jit(jnp.sinh)``) compiles from library code alone, called from a visible test,
    with no answer code in its locations or on the stack, yet its program is the answer's."""
    previous = sys.getprofile()
    _state.answer_ran = False

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and not _state.answer_ran and secret(frame.f_code.co_filename):
            _state.answer_ran = True

    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(previous)
        _state.answer_ran = False


@contextlib.contextmanager
def recording(secret: Callable[[str], bool]) -> Iterator[bool]:
    """Write cache entries only for programs :func:`tainted` clears (JAX must be imported).

    Wraps JAX's ``compile_or_get_cached`` (to look at each program and the stack compiling
    it) and its cache's ``put_executable_and_time`` (to write only programs found clean),
    then lets JAX write entries of any compile time. Yields False, writing nothing, when
    this JAX lacks either function.
    """
    try:
        from jax._src import compilation_cache, compiler
    except ImportError:
        yield False
        return
    compile_fn = getattr(compiler, "compile_or_get_cached", None)
    put_fn = getattr(compilation_cache, "put_executable_and_time", None)
    if compile_fn is None or put_fn is None:
        yield False
        return
    import jax

    def compile_or_get_cached(backend: Any, computation: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            text = computation.operation.get_asm(enable_debug_info=True,
                                                 large_elements_limit=16)
        except Exception:  # noqa: BLE001 - a program that cannot be printed is not cached
            text = None
        clean = (text is not None and not getattr(_state, "answer_ran", False)
                 and not tainted(text, _stack_files(), secret))
        outer = getattr(_state, "clean", None)
        _state.clean = clean if outer is None else (outer and clean)
        try:
            return compile_fn(backend, computation, *args, **kwargs)
        finally:
            _state.clean = outer

    def put_executable_and_time(*args: Any, **kwargs: Any) -> Any:
        if getattr(_state, "clean", None):
            return put_fn(*args, **kwargs)
        return None

    compiler.compile_or_get_cached = compile_or_get_cached
    compilation_cache.put_executable_and_time = put_executable_and_time
    before = jax.config.jax_persistent_cache_min_compile_time_secs
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    try:
        yield True
    finally:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", before)
        compiler.compile_or_get_cached = compile_fn
        compilation_cache.put_executable_and_time = put_fn
