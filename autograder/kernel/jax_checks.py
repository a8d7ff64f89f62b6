"""Checks that look at *how* a learner's JAX code works, not only what it returns."""

from __future__ import annotations

import contextlib
import dis
import io
from collections.abc import Callable
from types import CodeType
from typing import Any

import numpy as np

from autograder.kernel.config_watch import (  # noqa: F401 - their home before
    DEFAULT_CONFIG,
    config_message,
    config_snapshot,
    describe_changes,
    restore_config,
)


def jitted_type() -> type:
    """The type of the functions ``jax.jit`` returns (``jaxlib``'s ``PjitFunction`` on JAX
    0.7 and 0.10): a type made in C++, which Python code cannot subclass or imitate."""
    try:
        from jaxlib._jax import PjitFunction

        return PjitFunction
    except ImportError:  # another jaxlib layout: ask JAX's own jit, not the patchable name
        from jax._src import api

        return type(api.jit(lambda x: x))


def is_jitted(fn: Any) -> bool:
    """True when ``fn`` is a function ``jax.jit`` made (directly or as a decorator).

    Decided by its real type (:func:`jitted_type`), never by attributes: an object that
    merely has ``lower`` and ``trace`` attributes is not jitted. ``jax.vmap(jax.jit(f))`` is a
    plain function (write ``jax.jit(jax.vmap(f))`` for one compiled program)."""
    return type(fn) is jitted_type()


def check_jitted(fn: Any, name: str = "the function") -> None:
    """Assert that ``fn`` was wrapped with ``jax.jit`` (directly or as a decorator).

    Raises:
        AssertionError: when ``fn`` is a plain Python function or some other callable.
    """
    from autograder.kernel.reporter import observe

    observe(f"{name} is jitted", None if is_jitted(fn) else (
        f"{name} is a plain {type(fn).__name__}, not a jitted function. Wrap it: "
        "`f = jax.jit(f)` or decorate the def with `@jax.jit`."))


def cache_size(fn: Any) -> int:
    """How many compiled versions a jitted function holds, as JAX's own jitted type counts
    them (an attribute the object defines is never consulted).

    Raises:
        AssertionError: when ``fn`` is not a function ``jax.jit`` made: its compilations
            cannot be counted, and a count that is not there is never read as 0.
    """
    if not is_jitted(fn):
        raise AssertionError(
            f"a {type(fn).__name__} is not a jitted function, so how often it compiles "
            "cannot be measured: wrap it with `jax.jit` (or decorate the def with `@jax.jit`).")
    return int(jitted_type()._cache_size(fn))


def check_no_retrace(fn: Any, *args: Any, name: str = "the function", **kwargs: Any) -> None:
    """Assert that a second call with same-shaped arguments reuses the first compilation.

    The count is JAX's own (:func:`cache_size`); a function that is not jitted, or whose
    calls change JAX's configuration, fails.

    Raises:
        AssertionError: when ``fn`` is not jitted, when the second call compiled again
            (typically a ``jax.jit`` created inside the function, or a static argument
            that changes on every call), or when a call changed ``jax.config``.
    """
    from autograder.kernel.reporter import observe
    from autograder.kernel.timing import block

    check_jitted(fn, name)
    check = f"{name} compiles once"
    if not is_jitted(fn):
        observe(check, f"{name} is not a jitted function, so whether it compiles once cannot "
                "be measured: wrap it with `jax.jit`.")
        return
    config = config_snapshot()
    try:
        block(fn(*args, **kwargs))
        before = cache_size(fn)
        block(fn(*args, **kwargs))
        after = cache_size(fn)
    finally:
        changed = restore_config(config)
    if changed:
        observe(check, config_message(name, changed))
        return
    observe(check, (
        f"{name} was compiled again on a second call with the same shapes "
        f"({before} -> {after} cached versions). Are static arguments changing, or is "
        "`jax.jit` applied afresh on each call?") if after > before else None)


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

    config = config_snapshot()
    try:
        problem = impurity(fn, *args, name=name, **kwargs)
    finally:
        changed = restore_config(config)
    observe(f"{name} is pure", config_message(name, changed) if changed else problem)


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

    config = config_snapshot()
    try:
        small = jaxpr_size(fn, *make_args(2))
        large = jaxpr_size(fn, *make_args(16))
    finally:
        changed = restore_config(config)
    if changed:
        observe(f"{name} is vectorised", config_message(name, changed))
        return
    observe(f"{name} is vectorised", (
        f"{name} traces to more operations for 16 examples than for 2: it loops over the "
        "batch in Python. Use `jax.vmap` so the program stays the same size whatever the "
        "batch.") if large > small else None)


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
