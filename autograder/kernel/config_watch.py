"""JAX's global configuration, watched around the calls checks and timing tests make.

An answer must not change ``jax.config`` while a test calls it: a setting flipped on every
call (``jax_disable_jit``, ``jax_debug_nans``) would slow the reference timed next to it, or
change what a check measures. :func:`config_snapshot` reads every setting as it applies now,
:func:`restore_config` puts back what changed and says what it was.

Before any answer runs, every setting is read once (:func:`mark_start`: when a grader's kernel
starts, or when a notebook imports the course's checks after JAX); each test cell's checks
begin by putting every setting back to that start, or to :data:`DEFAULT_CONFIG`'s value
(:func:`put_back`), so no setting an answer chose, listed or not, global or left open in a
``with`` block, is in force while the tests measure.
"""

from __future__ import annotations

import sys
from typing import Any

# JAX settings an answer may change that would change what the checks measure: a test runs with
# these values (``jax_disable_jit`` would let code that cannot be traced pass a jit question;
# the debugging checks below slow eager code, so the reference of a timing test, several times
# over: key reuse 7x, compile logging 2x on JAX 0.12, and not the compiled answer).
DEFAULT_CONFIG: dict[str, object] = {
    "jax_disable_jit": False,
    "jax_enable_x64": False,
    "jax_debug_nans": False,
    "jax_debug_infs": False,
    "jax_check_tracer_leaks": False,
    "jax_numpy_rank_promotion": "allow",
    "jax_numpy_dtype_promotion": "standard",
    "jax_default_matmul_precision": None,
    "jax_debug_key_reuse": False,
    "jax_enable_checks": False,
    "jax_log_compiles": False,
}


# Thread-local settings the course's own ``feedback()`` block sets around its checks
# (``autograder.kernel.hints.display``): a value equal to one of these is no change.
COURSE_OVERRIDES: dict[str, object] = {"jax_default_matmul_precision": "float32"}
# Settings the tests leave as they find them. Those JAX reads only when it starts its backends
# (the course's ``simulate_devices`` sets ``jax_platforms`` after a kernel started): putting
# them back later would change nothing. And those of JAX's persistent compilation cache, which
# say where compiled programs are kept, not how they run (a timing test compiles before it
# times); the grader's trusted run sets them after JAX started, to record its programs.
START_UP_SETTINGS = ("jax_platforms", "jax_platform_name", "jax_num_cpu_devices",
                     "jax_cuda_visible_devices", "jax_rocm_visible_devices")
CACHE_SETTINGS = ("jax_enable_compilation_cache", "jax_raise_persistent_cache_errors")
CACHE_PREFIXES = ("jax_compilation_cache_", "jax_persistent_cache_")
# Every setting before any answer ran (:func:`mark_start`).
_start: dict[str, Any] = {"values": None}
# The configuration when the running test cell's checks began (``feedback()``'s reset, see
# :func:`mark_baseline`), and the IPython cell it belongs to.
_baseline: dict[str, Any] = {"values": None, "cell": None, "held": {}}


def _cell() -> int | None:
    """The IPython execution count of the running cell (None outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None


def mark_start() -> None:
    """Read every JAX setting before any answer runs, once per process: the configuration
    each test cell's checks put back (:func:`start_values`). A grader's kernel does it before
    the notebook's first cell; in a learner's kernel, importing this module after JAX does
    (the notebook's imports cell). Later calls keep the first reading."""
    if _start["values"] is None:
        _start["values"] = config_snapshot()


def start_values() -> dict[str, Any]:
    """Every JAX setting as :func:`mark_start` read it (read now if it has not been)."""
    mark_start()
    return dict(_start["values"])


def left_as_set(name: str) -> bool:
    """Whether the tests leave setting ``name`` as they find it (:data:`START_UP_SETTINGS`,
    the compilation cache's)."""
    return (name in START_UP_SETTINGS or name in CACHE_SETTINGS
            or name.startswith(CACHE_PREFIXES))


def _clear_local(name: str) -> None:
    """End a thread-local override of ``name`` (a ``with jax.debug_key_reuse(True):`` block
    entered and never left), as leaving the block would. JAX keeps these in private state
    (the same on 0.7 to 0.12); where it is not found, nothing happens and the override stays,
    which :func:`put_back` reports."""
    import jax

    try:
        from jax._src import config as config_src

        holder = jax.config._value_holders[name]
        holder.swap_local(config_src.config_ext.unset)
        hook = getattr(holder, "_update_thread_local_hook", None)
        if hook is not None:
            hook(None)
    except Exception:  # noqa: BLE001 - reported by put_back as a setting it could not set
        return


def put_back(values: dict[str, Any]
             ) -> tuple[dict[str, tuple[Any, Any]], dict[str, tuple[Any, Any]]]:
    """Set every JAX setting named in ``values`` to its value there, globally and with any
    thread-local override of it ended. Returns those that differed, name -> (wanted, found),
    and those still not at their value afterwards, name -> (wanted, in force); settings this
    JAX lacks are skipped."""
    import jax

    now = config_snapshot(values)
    changed = {name: (value, now[name]) for name, value in values.items()
               if name in now and now[name] != value}
    for name, (value, _) in changed.items():
        _clear_local(name)
        try:
            jax.config.update(name, value)
        except Exception:  # noqa: BLE001 - reported below as not put back
            continue
    after = config_snapshot(changed)
    held = {name: (value, after.get(name)) for name, (value, _) in changed.items()
            if after.get(name) != value}
    return changed, held


def mark_baseline(held: dict[str, tuple[Any, Any]] | None = None) -> None:
    """Take a snapshot of every JAX setting as the running test cell's checks begin, after
    the tests put every setting back (:func:`put_back`) and before they call the answer (its
    builder included): the configuration every timed call of this cell must run under
    (:func:`baseline_changes`). ``held``: the settings that could not be put back, which
    fail the cell's timing tests (:func:`baseline_held`). Only inside IPython, for the cell
    running now."""
    cell = _cell()
    _baseline.update(values=config_snapshot() if cell is not None else None, cell=cell,
                     held=dict(held or {}) if cell is not None else {})


def baseline_held() -> dict[str, tuple[Any, Any]]:
    """The settings the running cell's checks could not put back as they began (name ->
    (wanted, in force)); empty outside the cell :func:`mark_baseline` marked."""
    if _baseline["values"] is None or _baseline["cell"] != _cell():
        return {}
    return dict(_baseline["held"])


def baseline_changes() -> dict[str, tuple[Any, Any]]:
    """The settings that differ now from the running cell's baseline (:func:`mark_baseline`):
    name -> (baseline, now); empty when there is none for this cell. A value the course's
    own checks set around themselves (:data:`COURSE_OVERRIDES`) is no change."""
    values = _baseline["values"]
    if values is None or _baseline["cell"] != _cell():
        return {}
    now = config_snapshot()
    return {name: (value, now[name]) for name, value in values.items()
            if name in now and now[name] != value
            and not (name in COURSE_OVERRIDES and now[name] == COURSE_OVERRIDES[name])}


def config_snapshot(names: Any = None) -> dict[str, Any]:
    """Every JAX configuration value as it applies now (thread-local overrides, such as a
    ``jax.disable_jit()`` context left open, included), or only those in ``names`` (a quick
    look between two timed calls: :data:`DEFAULT_CONFIG`'s)."""
    import jax

    holders = getattr(jax.config, "_value_holders", None)
    if isinstance(holders, dict):
        found = {}
        for name in holders if names is None else names:
            holder = holders.get(name)
            if holder is None:
                continue
            try:
                found[name] = holder.value
            except Exception:  # noqa: BLE001 - a value JAX cannot read now is left out
                continue
        return found
    values = dict(getattr(jax.config, "values", {}))
    return values if names is None else {n: values[n] for n in names if n in values}


def restore_config(snapshot: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Put back every JAX setting that differs from ``snapshot`` (:func:`put_back`, a
    thread-local override ended too); return those that had changed, name -> (before,
    after). The check that saw a change fails all the same."""
    return put_back(snapshot)[0]


def describe_changes(changed: dict[str, tuple[Any, Any]]) -> str:
    """``jax_disable_jit False -> True, ...`` for a message (at most five settings)."""
    return ", ".join(f"{name} {before!r} -> {after!r}"
                     for name, (before, after) in sorted(changed.items())[:5])


def config_message(what: str, changed: dict[str, tuple[Any, Any]]) -> str:
    """Why a check failed when ``what`` changed JAX's configuration while it ran."""
    return (f"{what} changed JAX's global configuration while the test ran it "
            f"({describe_changes(changed)}). An answer must not change jax.config when it "
            "is called: set what you need once, before the tests, or not at all.")


if "jax" in sys.modules:  # a notebook's imports cell imported JAX first: no answer ran yet
    mark_start()
