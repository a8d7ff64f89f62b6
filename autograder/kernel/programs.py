"""What a function traces to: its jaxpr, the equations nested in it, and host callbacks.

"Is it jitted" is the real type of the object (:func:`is_jitted`); "is it compiled work" looks
into the program it traces to for callbacks into Python (:func:`host_callbacks`). Used by
:mod:`autograder.kernel.jax_checks` and by the timing tests (:mod:`autograder.kernel.timing`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any


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


def traced_jaxpr(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """The jaxpr ``fn`` traces to for these arguments (a ``Jaxpr``, nested ones inside).

    A jitted function is traced by its own ``trace`` (so its static arguments stay static);
    anything else with ``jax.make_jaxpr``, where arguments that are not arrays (Python numbers,
    strings, None) are held fixed rather than traced.
    """
    import jax

    if is_jitted(fn):
        return fn.trace(*args, **kwargs).jaxpr.jaxpr
    leaves, tree = jax.tree.flatten((args, kwargs))
    arrays = [i for i, leaf in enumerate(leaves) if hasattr(leaf, "shape")]

    def with_arrays(*traced: Any) -> Any:
        filled = list(leaves)
        for i, value in zip(arrays, traced, strict=True):
            filled[i] = value
        call_args, call_kwargs = jax.tree.unflatten(tree, filled)
        return fn(*call_args, **call_kwargs)

    return jax.make_jaxpr(with_arrays)(*(leaves[i] for i in arrays)).jaxpr


def equations(jaxpr: Any) -> Iterator[Any]:
    """Every equation of ``jaxpr`` and of the jaxprs nested in it (jit, scan, cond, while,
    custom_jvp/vjp bodies...), depth first."""
    from autograder.kernel.compat import jaxprs_in_params

    stack = [jaxpr]
    while stack:
        for eqn in stack.pop().eqns:
            yield eqn
            stack.extend(getattr(sub, "jaxpr", sub) for sub in jaxprs_in_params(eqn.params))


def _callback_of(eqn: Any) -> str:
    """``jax.pure_callback of `name``` for a callback equation (the Python function's name
    when JAX keeps it)."""
    func = getattr(eqn.params.get("callback"), "callback_func", eqn.params.get("callback"))
    label = getattr(func, "__name__", None)
    where = f" of `{label}`" if isinstance(label, str) else ""
    return f"{eqn.primitive.name}{where}"


def callbacks_in(jaxpr: Any) -> list[str]:
    """The host callbacks in ``jaxpr`` (nested jaxprs included) that return values:
    ``pure_callback``, ``io_callback`` (and any other ``*callback`` primitive with outputs).

    A callback that returns nothing (``jax.debug.callback``, ``jax.debug.print``) cannot
    supply any part of a result, so it is not counted: the result still comes from the
    compiled program, and the time it takes counts against the answer.
    """
    return [_callback_of(eqn) for eqn in equations(jaxpr)
            if "callback" in eqn.primitive.name and eqn.outvars]


def host_callbacks(fn: Callable, *args: Any, **kwargs: Any) -> list[str]:
    """The host callbacks (see :func:`callbacks_in`) in the program ``fn`` traces to for these
    arguments; empty when there are none or when ``fn`` cannot be traced (a function that
    cannot be traced is eager code, which the timing and value checks see as such)."""
    try:
        jaxpr = traced_jaxpr(fn, *args, **kwargs)
    except Exception:  # noqa: BLE001 - untraceable: nothing to look into
        return []
    return callbacks_in(jaxpr)


def callback_message(name: str, found: list[str]) -> str | None:
    """The failure for a program with host callbacks ``found`` (None when there are none)."""
    if not found:
        return None
    shown = ", ".join(sorted(set(found))[:3])
    return (f"{name} calls back into Python from its compiled program ({shown}): a host "
            "callback runs Python code on every call, outside the compiled program, so it is "
            "eager work, not compiled work. Write the computation with jax.numpy operations "
            "(and jax.vmap for a batch).")
