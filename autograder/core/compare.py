"""Comparing arrays with messages that say what differed: pure NumPy, used by both sides.

A message names what differs and nothing else: dtypes appear only when the dtype is checked
(``check_dtype=True``) and differs, or when it is of another kind than expected (an integer
array where floats were expected, say), which often explains wrong values. NaN where a number
was expected is named as such, and values that are all the same multiple of the expected ones
(a step ``n_devices`` times too large, a flipped sign) are reported as that factor.

With ``hidden=True`` (a hidden test's check, decided by the grader) a message names only the
kind of difference and what the learner's own value is: the shape the answer had, the dtype,
NaN where a number was expected, or how large the error is relative to the values' size, in
coarse bands (:func:`error_band`). It never quotes an expected entry, shape or factor, so a
grading run cannot be used to read a hidden test's expected value.

The learner's checks (:mod:`autograder.kernel.checks`) and the decision of a check from data
(:mod:`autograder.core.decide`) both compare through :func:`assert_array_close`, so a
message reads the same in a notebook and on a feedback page.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _kind(dtype: np.dtype) -> str:
    """``"bool"``, ``"integer"``, ``"float"``, ``"complex"`` or ``"other"``."""
    if dtype.kind == "b":
        return "bool"
    for kind, base in (("integer", np.integer), ("float", np.floating),
                       ("complex", np.complexfloating)):
        if np.issubdtype(dtype, base):
            return kind
    # bfloat16 and other ml_dtypes floats are not np.floating subtypes
    return "float" if dtype.kind == "V" and "float" in dtype.name else "other"


def _dtype_note(got: np.ndarray, want: np.ndarray, check_dtype: bool) -> str:
    """A sentence about the dtype when it is checked and differs, or of another kind."""
    if got.dtype == want.dtype:
        return ""
    if check_dtype or _kind(got.dtype) != _kind(want.dtype):
        return f" Its dtype is {got.dtype}; expected {want.dtype}."
    return ""


def _uniform_factor(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> float | None:
    """``k`` when ``got`` is ``k * want`` entry by entry (``k`` not 0 or 1), else None."""
    nonzero = np.abs(want) > atol
    if got.size < 2 or int(nonzero.sum()) < 2 or not np.all(np.isfinite(got)):
        return None
    if np.ptp(want[nonzero]) <= atol + rtol * np.abs(want[nonzero]).max():
        return None  # every expected entry the same: any constant answer "fits" a factor
    k = float(np.dot(got.ravel(), want.ravel()) / np.dot(want.ravel(), want.ravel()))
    if abs(k) < 1e-3 or abs(k - 1.0) < 1e-3:
        return None
    if np.allclose(got, k * want, rtol=max(rtol, 1e-4), atol=atol):
        return k
    return None


def _item(value: Any) -> Any:
    """A NumPy scalar as the Python value it holds (``True``, not ``np.True_``)."""
    return value.item() if hasattr(value, "item") else value


def _at(index: tuple) -> str:
    """`` at index (i, j)`` for an entry of an array, empty for a scalar."""
    return f" at index {tuple(int(i) for i in index)}" if index else ""


# (bound, words): the relative size of a hidden check's error, coarse on purpose
ERROR_BANDS = ((0.01, "under 1%"), (0.1, "between 1% and 10%"), (0.5, "between 10% and 50%"))


def error_band(got: np.ndarray, want: np.ndarray) -> str:
    """How large the largest error is relative to the values' size, in coarse words.

    The size is the largest magnitude in either array, so the ratio is at most 2 and an
    expected zero reads like any other value ("more than half"); the bands are wide enough
    that the learner's own value and the band together never pin an expected value down.
    """
    with np.errstate(all="ignore"):
        scale = max(float(np.nanmax(np.abs(want), initial=0.0)),
                    float(np.nanmax(np.abs(got), initial=0.0)))
        error = float(np.nanmax(np.abs(got - want), initial=0.0))
    ratio = error / scale if scale > 0 and np.isfinite(scale) else np.inf
    for bound, words in ERROR_BANDS:
        if ratio < bound:
            return words
    return "more than half"


def _hidden_failure(got: np.ndarray, want: np.ndarray, name: str, note: str) -> AssertionError:
    """The message of a hidden check's value mismatch: the kind of difference, no value."""
    if want.dtype == bool or got.dtype == bool or not np.issubdtype(want.dtype, np.number) \
            or not np.issubdtype(got.dtype, np.number):
        return AssertionError(f"{name} has the right shape {got.shape} but some entries differ "
                              "from the expected value." + note)
    got_f, want_f = got.astype(np.float64), want.astype(np.float64)
    if np.any(np.isnan(got_f) & ~np.isnan(want_f)):
        return AssertionError(f"{name} has the right shape {got.shape} but wrong values: NaN "
                              "where a number was expected." + note)
    if np.any(np.isinf(got_f) & ~np.isinf(want_f)):
        return AssertionError(f"{name} has the right shape {got.shape} but wrong values: "
                              "infinity where a finite number was expected." + note)
    mask = np.isnan(got_f) | np.isnan(want_f) | np.isinf(got_f) | np.isinf(want_f)
    band = error_band(np.where(mask, 0.0, got_f), np.where(mask, 0.0, want_f))
    return AssertionError(f"{name} has the right shape {got.shape} but wrong values: the "
                          f"largest error is {band} of the values' size." + note)


def assert_array_close(actual: Any, expected: Any, name: str, rtol: float, atol: float,
                       check_dtype: bool, hidden: bool = False) -> None:
    """Raise AssertionError, with a message naming what differs, unless ``actual`` matches
    ``expected`` in shape (and dtype when ``check_dtype``) and in value within tolerance.

    With ``hidden``, the message says what kind of difference it is without quoting anything
    of ``expected`` but its dtype (see the module docstring)."""
    if actual is None:
        raise AssertionError(f"{name} returned None: did the function forget to `return`?")
    try:
        got = np.asarray(actual)
    except Exception as exc:  # a tracer, a list of arrays, ...
        raise AssertionError(f"{name} is not an array ({type(actual).__name__}): {exc}") from None
    want = np.asarray(expected)
    if got.shape != want.shape and hidden:
        raise AssertionError(f"{name} has the wrong shape: got shape {got.shape}, which is not "
                             "the shape expected." + _dtype_note(got, want, check_dtype))
    if got.shape != want.shape:
        raise AssertionError(
            f"{name} has the wrong shape: expected shape {want.shape}, got shape {got.shape}."
            + _dtype_note(got, want, check_dtype)
        )
    if check_dtype and got.dtype != want.dtype:
        raise AssertionError(
            f"{name} has the wrong dtype: expected {want.dtype}, got {got.dtype}."
        )
    if hidden:
        if not _matches(got, want, rtol, atol):
            raise _hidden_failure(got, want, name, _dtype_note(got, want, check_dtype))
        return
    if want.dtype == bool or got.dtype == bool or not np.issubdtype(want.dtype, np.number):
        mismatch = got != want
        if np.any(mismatch):
            first = tuple(int(i) for i in np.argwhere(mismatch)[0])
            raise AssertionError(
                f"{name} differs from the expected value in {int(mismatch.sum())} of "
                f"{mismatch.size} entries; first at index {first}: expected "
                f"{_item(want[first])!r}, got {_item(got[first])!r}."
                + _dtype_note(got, want, check_dtype)
            )
        return
    got_f = got.astype(np.float64)
    want_f = want.astype(np.float64)
    if np.array_equal(np.isnan(got_f), np.isnan(want_f)) and np.allclose(
        got_f, want_f, rtol=rtol, atol=atol, equal_nan=True
    ):
        return
    note = _dtype_note(got, want, check_dtype)
    unexpected_nan = np.isnan(got_f) & ~np.isnan(want_f)
    if np.any(unexpected_nan):
        idx = tuple(np.argwhere(unexpected_nan)[0]) if got.ndim else ()
        raise AssertionError(
            f"{name} has the right shape {got.shape} but wrong values: NaN{_at(idx)} "
            f"where {want_f[idx]:.6g} was expected; {int(unexpected_nan.sum())} of {got.size} "
            f"entries are NaN." + note
        )
    diff = np.abs(np.where(np.isnan(got_f) | np.isnan(want_f), np.inf, got_f - want_f))
    where = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
    factor = _uniform_factor(got_f, want_f, rtol, atol)
    factor_txt = (f" Every entry is {factor:.4g} times the expected value."
                  if factor is not None else "")
    raise AssertionError(
        f"{name} has the right shape {got.shape} but wrong values: largest difference "
        f"{float(diff[where]):.3g}{_at(where)} (expected {want_f[where]:.6g}, got "
        f"{got_f[where]:.6g}); {int((diff > atol + rtol * np.abs(want_f)).sum())} of {diff.size} "
        f"entries are off." + factor_txt + note
    )


def _matches(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> bool:
    """Whether two arrays of one shape agree, as :func:`assert_array_close` decides."""
    if want.dtype == bool or got.dtype == bool or not np.issubdtype(want.dtype, np.number):
        return not np.any(got != want)
    got_f, want_f = got.astype(np.float64), want.astype(np.float64)
    return bool(np.array_equal(np.isnan(got_f), np.isnan(want_f)) and np.allclose(
        got_f, want_f, rtol=rtol, atol=atol, equal_nan=True))


def array_matches(actual: Any, value: Any, rtol: float, atol: float) -> bool:
    """True when ``actual`` passes the comparison against ``value`` (a known mistake)."""
    try:
        assert_array_close(actual, value, "", rtol, atol, False)
    except Exception:  # noqa: BLE001 - something that cannot be compared matches nothing
        return False
    return True
