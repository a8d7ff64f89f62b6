"""Which programs JAX compiled while some code ran, and which it compiled more than once.

A jitted function compiles once per kind of input (shapes, dtypes, static values, shardings)
and serves every later call from its cache. The anti-pattern the chapters teach against is a
``jax.jit`` (or ``jax.shard_map``, ``jax.pmap``, ``jax.vmap`` then jit) applied to a fresh
function (a closure, a lambda, a ``functools.partial``) inside code that runs on every call:
each call then traces, lowers and compiles the very same program again.

That is found by behaviour here, not by reading source: JAX writes the StableHLO module of
every program it hands to XLA to a folder (``jax_dump_ir_to``, the ``compile`` stage: also
when the executable then comes from the persistent compilation cache), without source
locations (``jax_include_debug_info_in_dumps`` off), so two compilations of one program are
byte for byte the same text, whoever built the function. :func:`recording_compiles` collects
them, each labelled with the code that was running (:meth:`CompileLog.mark`);
:func:`repeats` names the programs compiled more than once. A different static value, shape,
dtype or sharding is a different program and never counts as a repeat.

The exercise harness (:mod:`autograder.tests.exercise_harness`) records the reference run of
every source notebook this way; ``test_compile_audit.py`` asks that no reference answer
compiles one program twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# JAX's settings for the dump, as environment variables (read when JAX is imported) and as
# configuration names (set directly when JAX is imported already).
_SETTINGS = {
    "jax_dump_ir_modes": "stablehlo",
    "jax_include_debug_info_in_dumps": False,
}
_STAGE = "_compile.mlir"  # what JAX names the module it hands to XLA: jax_irNNNN_<name>_compile


@dataclass(frozen=True)
class Program:
    """One compilation: the code running when it happened (``label``), the module's name
    (``jit_<function>``), a digest of its text, inputs and JAX's settings, and its input
    types (``inputs``, as JAX logs them)."""

    label: str
    name: str
    digest: str
    inputs: str = ""

    def to_json(self) -> list[str]:
        """``[label, name, digest, inputs]``."""
        return [self.label, self.name, self.digest, self.inputs]

    @classmethod
    def from_json(cls, data: list[str]) -> Program:
        """The program :meth:`to_json` wrote."""
        return cls(*data)


_LOGGERS = ("jax._src.interpreters.pxla", "jax._src.compiler")
_LOWERING = "Compiling %s with global shapes and types %s. "  # pxla's debug line, its start
_DUMPED = "Dumped the module to %s."  # the compiler's line after writing a module
# JAX's library modules (under jax/_src): what they compile when called eagerly is theirs
_LIBRARY = frozenset({"numpy", "lax", "nn", "scipy", "ops", "image", "random.py", "prng.py",
                      "array.py", "dtypes.py"})


@dataclass
class CompileLog:
    """The programs compiled inside :func:`recording_compiles`, in order, each labelled."""

    folder: Path
    programs: list[Program] = field(default_factory=list)
    _unmarked: list[tuple[str, str, str]] = field(default_factory=list)
    _lowered: tuple[str, str] = ("", "")  # the last lowering: its inputs, and all it adds

    def mark(self, label: str) -> list[Program]:
        """Label every program compiled since the last mark ``label``; return them."""
        new = [Program(label, *program) for program in self._unmarked]
        self._unmarked.clear()
        self.programs += new
        return new

    def _saw(self, record: logging.LogRecord) -> None:
        """Note a lowering (its input types, weak types included, its shardings and JAX's
        settings: two programs whose text differs only there are different programs) or a
        written module (a compilation: its text, with the last lowering's inputs, is the
        program's digest)."""
        if not isinstance(record.args, tuple):
            return
        if record.msg.startswith(_LOWERING) and len(record.args) == 3:
            inputs = str(record.args[1])
            self._lowered = (inputs, f"{inputs}\n{record.args[2]}\n{_settings()}")
        elif record.msg == _DUMPED and len(record.args) == 1:
            file = str(record.args[0])
            if not file.endswith(_STAGE) or _library_operation():
                return
            text = (self.folder / file).read_bytes()
            digest = hashlib.sha256(text + self._lowered[1].encode()).hexdigest()[:16]
            self._unmarked.append((file[len("jax_ir0000_"):-len(_STAGE)], digest,
                                   self._lowered[0]))
            self._lowered = ("", "")


def _library_operation() -> bool:
    """Whether the compilation under way is JAX's own business, not a transformation some
    code asked for: one operation run eagerly (``dispatch.apply_primitive`` on the stack), or
    a library function (``jnp.multiply``, ``jax.random.split``, an array's ``+``) that the code
    outside JAX called, as a transformation evaluated eagerly (``jax.grad(f)(x)``) runs them.
    JAX caches those by more than a program's text shows, and no answer's ``jax.jit`` is one.
    What a call of ``jax.jit``, ``jax.shard_map``, ``jax.pmap``, ``jax.vmap`` or ``grad``, or
    ``.lower().compile()``, compiles is never skipped."""
    frame = sys._getframe(1)
    entered = None  # the outermost JAX frame of the innermost run of JAX frames
    while frame is not None:
        parts = Path(frame.f_code.co_filename).parts
        inside = "jax" in parts and "_src" in parts
        if inside and frame.f_code.co_name == "apply_primitive" and parts[-1] == "dispatch.py":
            return True
        if inside:
            entered = parts[parts.index("_src") + 1:]
        elif entered is not None and not parts[-1].startswith("logging"):
            return bool(entered) and entered[0] in _LIBRARY
        frame = frame.f_back
    return False


def _settings() -> str:
    """JAX's settings as they apply now (scoped ones included), those of plain values: a
    program compiled again under another setting (``jax.default_matmul_precision`` in a test
    block, ``jax.debug_key_reuse`` around a call) is compiled for another context, not
    recompiled by the code that calls it."""
    import enum

    from autograder.kernel.config_watch import config_snapshot

    plain = (bool, int, float, str, type(None), enum.Enum)
    return repr(sorted((name, value) for name, value in config_snapshot().items()
                       if isinstance(value, plain)))


class _Watch(logging.Filter):
    """A logger filter that shows JAX's compile lines to a :class:`CompileLog` and lets
    through only what the logger let through before (nothing new is printed)."""

    def __init__(self, log: CompileLog, keep_from: int) -> None:
        super().__init__()
        self.log, self.keep_from = log, keep_from

    def filter(self, record: logging.LogRecord) -> bool:
        self.log._saw(record)
        return record.levelno >= self.keep_from


def _jax_config() -> object | None:
    """``jax.config`` when JAX is imported already, else None (the environment then speaks)."""
    jax = sys.modules.get("jax")
    return getattr(jax, "config", None) if jax is not None else None


@contextlib.contextmanager
def recording_compiles() -> Iterator[CompileLog]:
    """Have JAX write every program it compiles inside the block to a temporary folder; yield
    the :class:`CompileLog` that reads them (call :meth:`CompileLog.mark` after each piece of
    code). On leaving, what is not marked yet is marked ``"(end)"``, the settings and loggers
    are put back and the folder removed. Works whether JAX is imported before the block or
    inside it."""
    folder = Path(tempfile.mkdtemp(prefix="learn-jax-compiles-"))
    settings = {"jax_dump_ir_to": str(folder), **_SETTINGS}
    saved_env = {name.upper(): os.environ.get(name.upper()) for name in settings}
    config = _jax_config()
    saved_config = {}
    if config is not None:
        saved_config = {name: getattr(config, name) for name in settings}
        for name, value in settings.items():
            config.update(name, value)
    for name, value in settings.items():
        os.environ[name.upper()] = str(value).lower() if isinstance(value, bool) else value
    log = CompileLog(folder)
    loggers = [logging.getLogger(name) for name in _LOGGERS]
    watches = [(logger, logger.level, _Watch(log, logger.getEffectiveLevel()))
               for logger in loggers]
    for logger, _, watch in watches:
        logger.addFilter(watch)
        logger.setLevel(logging.DEBUG)
    try:
        yield log
        log.mark("(end)")
    finally:
        for logger, level, watch in watches:
            logger.removeFilter(watch)
            logger.setLevel(level)
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        config = _jax_config()  # imported inside the block: back to the defaults
        if config is not None:
            for name in settings:
                config.update(name, saved_config.get(name, _default(name)))
        shutil.rmtree(folder, ignore_errors=True)


def _default(name: str) -> object:
    """What JAX's setting ``name`` is when nothing sets it."""
    return {"jax_dump_ir_to": "", "jax_dump_ir_modes": "stablehlo",
            "jax_include_debug_info_in_dumps": True}[name]


def repeats(programs: list[Program]) -> list[tuple[str, list[str]]]:
    """The programs compiled more than once, in the order first compiled: each as its name
    and the labels of the code that compiled each copy (one program recompiled on every call
    of an answer shows up once per call)."""
    by_digest: dict[str, list[Program]] = {}
    for program in programs:
        by_digest.setdefault(program.digest, []).append(program)
    return [(copies[0].name, [p.label for p in copies])
            for copies in by_digest.values() if len(copies) > 1]


CASE_SETUP = """
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((8,), ("d",))
X = jnp.arange(32.0).reshape(8, 4)
X_SPLIT = jax.device_put(X, NamedSharding(MESH, P("d")))
"""


def audit_cases(cases: list[Path]) -> dict[str, list[list]]:
    """Run each case file (plain Python using ``jax``, ``jnp``, ``P``, an 8-device ``MESH``,
    ``X`` of shape (8, 4) and ``X_SPLIT``, it split over ``"d"``) in a namespace of its own,
    recording compilations; return case name -> its :func:`repeats`. Needs eight devices:
    run it in a fresh process (``python -m autograder.tests.compile_audit CASE...``)."""
    from autograder.grader.judging.reference_run import run_code

    found = {}
    with recording_compiles() as log:
        for case in cases:
            ns: dict = {"__name__": "__main__"}
            setup = run_code(CASE_SETUP, ns, "<setup>")
            log.mark("(setup)")
            ran = run_code(case.read_text(), ns, str(case))
            for error in (setup.exc, ran.exc):
                if error is not None:
                    raise RuntimeError(f"{case.name} failed: {error!r}") from error
            programs = log.mark(case.stem)
            found[case.stem] = [[name, labels] for name, labels in repeats(programs)]
    return found


if __name__ == "__main__":
    import json

    from autograder.kernel.runtime import use_simulated_cpu_devices

    use_simulated_cpu_devices(8)
    print("AUDIT-JSON " + json.dumps(audit_cases([Path(arg) for arg in sys.argv[1:]])))
