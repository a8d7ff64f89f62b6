"""Comparisons of arrays and pytrees whose failure messages say what differed."""

from __future__ import annotations

from typing import Any

import numpy as np


def _describe(x: Any) -> str:
    arr = np.asarray(x)
    return f"shape {arr.shape}, dtype {arr.dtype}"


def check_array(
    actual: Any,
    expected: Any,
    *,
    name: str = "result",
    rtol: float = 1e-5,
    atol: float = 1e-6,
    check_dtype: bool = False,
) -> None:
    """Assert that ``actual`` matches ``expected`` in shape (and values within tolerance).

    Args:
        actual: what the learner's code returned (a ``jax.Array``, NumPy array or scalar).
        expected: the reference value.
        name: how to call ``actual`` in the message, e.g. ``"normalize(x)"``.
        rtol, atol: tolerances as in ``numpy.allclose``.
        check_dtype: also require the same dtype.

    Raises:
        AssertionError: saying the expected and actual shape and dtype, the largest difference
            and where it is.
    """
    if actual is None:
        raise AssertionError(f"{name} returned None: did the function forget to `return`?")
    try:
        got = np.asarray(actual)
    except Exception as exc:  # a tracer, a list of arrays, ...
        raise AssertionError(f"{name} is not an array ({type(actual).__name__}): {exc}") from None
    want = np.asarray(expected)
    if got.shape != want.shape:
        raise AssertionError(
            f"{name} has the wrong shape: expected {_describe(want)}, got {_describe(got)}."
        )
    if check_dtype and got.dtype != want.dtype:
        raise AssertionError(
            f"{name} has the wrong dtype: expected {want.dtype}, got {got.dtype}."
        )
    if want.dtype == bool or got.dtype == bool or not np.issubdtype(want.dtype, np.number):
        mismatch = got != want
        if np.any(mismatch):
            first = tuple(int(i) for i in np.argwhere(mismatch)[0])
            raise AssertionError(
                f"{name} differs from the expected value in {int(mismatch.sum())} of "
                f"{mismatch.size} entries; first at index {first}: expected {want[first]!r}, "
                f"got {got[first]!r}."
            )
        return
    got_f = got.astype(np.float64)
    want_f = want.astype(np.float64)
    if np.array_equal(np.isnan(got_f), np.isnan(want_f)) and np.allclose(
        got_f, want_f, rtol=rtol, atol=atol, equal_nan=True
    ):
        return
    diff = np.abs(np.where(np.isnan(got_f) | np.isnan(want_f), np.inf, got_f - want_f))
    where = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
    where_txt = f" at index {tuple(int(i) for i in where)}" if where else ""
    raise AssertionError(
        f"{name} has the right shape {got.shape} but wrong values: largest difference "
        f"{float(diff[where]):.3g}{where_txt} (expected {want_f[where]:.6g}, got "
        f"{got_f[where]:.6g}); {int((diff > atol + rtol * np.abs(want_f)).sum())} of {diff.size} "
        f"entries are off. Expected {_describe(want)}, got {_describe(got)}."
    )


def check_tree(actual: Any, expected: Any, *, name: str = "result", **tolerances: Any) -> None:
    """Assert that two pytrees have the same structure and matching leaves.

    Leaves are compared with :func:`check_array`; the message names the leaf's path, e.g.
    ``grads['w']``.
    """
    import jax

    got_leaves, got_def = jax.tree_util.tree_flatten_with_path(actual)
    want_leaves, want_def = jax.tree_util.tree_flatten_with_path(expected)
    if got_def != want_def:
        raise AssertionError(
            f"{name} has the wrong structure: expected {want_def}, got {got_def}."
        )
    for (path, got), (_, want) in zip(got_leaves, want_leaves, strict=True):
        check_array(got, want, name=f"{name}{jax.tree_util.keystr(path)}", **tolerances)


def check_scalar(actual: Any, expected: float, *, name: str = "result", rtol: float = 1e-5,
                 atol: float = 1e-6) -> None:
    """Assert that ``actual`` is a single number close to ``expected``."""
    shape = np.shape(actual)
    if shape != ():
        raise AssertionError(f"{name} should be a scalar (shape ()), got shape {shape}.")
    check_array(actual, expected, name=name, rtol=rtol, atol=atol)
