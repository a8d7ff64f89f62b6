"""JAX's global configuration, watched around the calls checks and timing tests make.

An answer must not change ``jax.config`` while a test calls it: a setting flipped on every
call (``jax_disable_jit``, ``jax_debug_nans``) would slow the reference timed next to it, or
change what a check measures. :func:`config_snapshot` reads every setting as it applies now,
:func:`restore_config` puts back what changed and says what it was.
"""

from __future__ import annotations

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
# The configuration when the running test cell's checks began (``feedback()``'s reset, see
# :func:`mark_baseline`), and the IPython cell it belongs to.
_baseline: dict[str, Any] = {"values": None, "cell": None}


def _cell() -> int | None:
    """The IPython execution count of the running cell (None outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None


def mark_baseline() -> None:
    """Take a snapshot of every JAX setting as the running test cell's checks begin, after
    the tests' reset to JAX's defaults and before they call the answer (its builder
    included): the configuration every timed call of this cell must run under
    (:func:`baseline_changes`). Only inside IPython, for the cell running now."""
    cell = _cell()
    _baseline.update(values=config_snapshot() if cell is not None else None, cell=cell)


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
    """Put back every JAX setting that differs from ``snapshot``; return those that had
    changed, name -> (before, after). (A thread-local override cannot be undone here; the
    change is reported all the same, and the check that saw it fails.)"""
    import jax

    now = config_snapshot()
    changed = {name: (value, now.get(name)) for name, value in snapshot.items()
               if name in now and now[name] != value}
    for name, (value, _) in changed.items():
        try:
            jax.config.update(name, value)
        except Exception:  # noqa: BLE001 - reported as changed all the same
            continue
    return changed


def describe_changes(changed: dict[str, tuple[Any, Any]]) -> str:
    """``jax_disable_jit False -> True, ...`` for a message (at most five settings)."""
    return ", ".join(f"{name} {before!r} -> {after!r}"
                     for name, (before, after) in sorted(changed.items())[:5])


def config_message(what: str, changed: dict[str, tuple[Any, Any]]) -> str:
    """Why a check failed when ``what`` changed JAX's configuration while it ran."""
    return (f"{what} changed JAX's global configuration while the test ran it "
            f"({describe_changes(changed)}). An answer must not change jax.config when it "
            "is called: set what you need once, before the tests, or not at all.")
