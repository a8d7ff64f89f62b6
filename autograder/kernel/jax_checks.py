"""Checks that look at *how* a learner's JAX code works, not only what it returns."""

from __future__ import annotations

import contextlib
import dis
import io
from collections.abc import Callable
from types import CodeType
from typing import Any

import numpy as np


def is_jitted(fn: Any) -> bool:
    """True when ``fn`` is a ``jax.jit``-wrapped function (it can be lowered and traced)."""
    return callable(fn) and hasattr(fn, "lower") and hasattr(fn, "trace")


def check_jitted(fn: Any, name: str = "the function") -> None:
    """Assert that ``fn`` was wrapped with ``jax.jit`` (directly or as a decorator).

    Raises:
        AssertionError: when ``fn`` is a plain Python function or some other callable.
    """
    from autograder.kernel.reporter import observe

    observe(f"{name} is jitted", None if is_jitted(fn) else (
        f"{name} is a plain {type(fn).__name__}, not a jitted function. Wrap it: "
        "`f = jax.jit(f)` or decorate the def with `@jax.jit`."))


def cache_size(fn: Any) -> int | None:
    """How many compiled versions a jitted function holds (None if JAX does not say)."""
    size = getattr(fn, "_cache_size", None)
    return size() if callable(size) else None


def check_no_retrace(fn: Any, *args: Any, name: str = "the function", **kwargs: Any) -> None:
    """Assert that a second call with same-shaped arguments reuses the first compilation.

    Raises:
        AssertionError: when ``fn`` is not jitted, or when the second call compiled again
            (typically a ``jax.jit`` created inside the function, or a static argument
            that changes on every call).
    """
    from autograder.kernel.reporter import observe
    from autograder.kernel.timing import block

    check_jitted(fn, name)
    block(fn(*args, **kwargs))
    before = cache_size(fn)
    block(fn(*args, **kwargs))
    after = cache_size(fn)
    again = before is not None and after is not None and after > before
    observe(f"{name} compiles once", (
        f"{name} was compiled again on a second call with the same shapes "
        f"({before} -> {after} cached versions). Are static arguments changing, or is "
        "`jax.jit` applied afresh on each call?") if again else None)


def _code_objects(code: CodeType) -> list[CodeType]:
    found = [code]
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found.extend(_code_objects(const))
    return found


def _captured(fn: Callable, *args: Any, **kwargs: Any) -> tuple[Any, str]:
    from autograder.kernel.timing import block

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = block(fn(*args, **kwargs))
    return result, out.getvalue()


def check_pure(fn: Callable, *args: Any, name: str = "the function", **kwargs: Any) -> None:
    """Assert that ``fn`` behaves as a pure function on these arguments (see :func:`impurity`).

    Raises:
        AssertionError: naming the first impurity found.
    """
    from autograder.kernel.reporter import observe

    observe(f"{name} is pure", impurity(fn, *args, name=name, **kwargs))


def impurity(fn: Callable, *args: Any, name: str = "the function", **kwargs: Any) -> str | None:
    """The first impurity of ``fn`` on these arguments (a message), or None.

    Checks that it assigns no global variables, has no Python ``print`` (which under jit runs
    only while tracing; ``jax.debug.print`` is fine), leaves NumPy inputs unchanged, returns
    the same value twice, and returns the same value under ``jax.jit`` as when called eagerly.
    """
    try:
        _check_pure(fn, *args, name=name, **kwargs)
    except AssertionError as exc:
        return str(exc)
    return None


def _check_pure(fn: Callable, *args: Any, name: str, **kwargs: Any) -> None:
    import jax

    from autograder.kernel.checks import check_tree

    target = getattr(fn, "__wrapped__", fn)
    code = getattr(target, "__code__", None)
    if code is not None:
        for obj in _code_objects(code):
            for ins in dis.get_instructions(obj):
                if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL"):
                    raise AssertionError(
                        f"{name} assigns the global `{ins.argval}`: under jit that happens "
                        "once, at trace time, not on every call. Return the value instead."
                    )
    snapshots = [np.array(a, copy=True) if isinstance(a, np.ndarray) else None for a in args]
    first, _ = _captured(fn, *args, **kwargs)
    second, _ = _captured(fn, *args, **kwargs)
    for i, (arg, snap) in enumerate(zip(args, snapshots, strict=True)):
        if snap is not None and not np.array_equal(arg, snap, equal_nan=True):
            raise AssertionError(f"{name} modified its argument #{i} in place.")
    check_tree(second, first, name=f"{name} called twice (second call)")
    # A fresh jit of the Python function: it traces on the first call only, so a Python print
    # shows once, while jax.debug.print (part of the compiled program) shows on both calls.
    fresh = jax.jit(lambda *a, **k: target(*a, **k))
    traced, first_out = _captured(fresh, *args, **kwargs)
    _, second_out = _captured(fresh, *args, **kwargs)
    if first_out != second_out:
        raise AssertionError(
            f"{name} prints from Python ({first_out.strip()[:60]!r}): under jit that only "
            "happens while tracing. Use `jax.debug.print` or return the value."
        )
    check_tree(traced, first, name=f"jax.jit({name})", rtol=1e-4, atol=1e-5)


def check_no_key_reuse(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn`` with JAX's key-reuse checker on; return its result.

    Raises:
        jax.errors.KeyReuseError: when a PRNG key is consumed twice (the hint says how to
            split keys).
    """
    from autograder.kernel.compat import key_reuse_checking

    with key_reuse_checking():
        return fn(*args, **kwargs)


def jaxpr_size(fn: Callable, *args: Any, **kwargs: Any) -> int:
    """Number of equations in ``fn``'s jaxpr for these arguments (nested jaxprs included)."""
    import jax

    from autograder.kernel.compat import jaxprs_in_params

    def count(jaxpr: Any) -> int:
        total = 0
        for eqn in jaxpr.eqns:
            total += 1
            for sub in jaxprs_in_params(eqn.params):  # jit, cond, scan, ... bodies
                total += count(getattr(sub, "jaxpr", sub))
        return total

    return count(jax.make_jaxpr(fn)(*args, **kwargs).jaxpr)


def check_vectorised(
    fn: Callable, make_args: Callable[[int], tuple], name: str = "the function"
) -> None:
    """Assert that ``fn`` handles a batch as one vectorised computation, not a Python loop.

    ``make_args(n)`` builds arguments for a batch of ``n`` examples. A Python loop over the
    batch makes the traced program grow with ``n``; ``vmap`` (or batched array code) keeps
    it the same size.

    Raises:
        AssertionError: when the jaxpr for 16 examples is larger than for 2.
    """
    from autograder.kernel.reporter import observe

    small = jaxpr_size(fn, *make_args(2))
    large = jaxpr_size(fn, *make_args(16))
    observe(f"{name} is vectorised", (
        f"{name} traces to more operations for 16 examples than for 2: it loops over the "
        "batch in Python. Use `jax.vmap` so the program stays the same size whatever the "
        "batch.") if large > small else None)


# JAX settings an answer may change that would change what the checks measure: a test runs with
# these values (``jax_disable_jit`` would let code that cannot be traced pass a jit question).
DEFAULT_CONFIG: dict[str, object] = {
    "jax_disable_jit": False,
    "jax_enable_x64": False,
    "jax_debug_nans": False,
    "jax_debug_infs": False,
    "jax_check_tracer_leaks": False,
    "jax_numpy_rank_promotion": "allow",
    "jax_numpy_dtype_promotion": "standard",
    "jax_default_matmul_precision": None,
}


def restore_default_config() -> list[str]:
    """Put the JAX settings in :data:`DEFAULT_CONFIG` back to their defaults; return the names
    of those that an earlier cell had changed (settings this JAX lacks are skipped)."""
    import jax

    changed = []
    for name, default in DEFAULT_CONFIG.items():
        try:
            current = getattr(jax.config, name)
        except AttributeError:
            continue
        if current != default:
            jax.config.update(name, default)
            changed.append(name)
    return changed
