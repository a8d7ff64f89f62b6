"""Comparisons of arrays and pytrees whose failure messages say what differed.

A message names what differs and nothing else: dtypes appear only when the dtype is checked
(``check_dtype=True``) and differs, or when it is of another kind than expected (an integer
array where floats were expected, say), which often explains wrong values. NaN where a number
was expected is named as such, and values that are all the same multiple of the expected ones
(a step ``n_devices`` times too large, a flipped sign) are reported as that factor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

# The default ``expected``: what the course's reference answer returned for the same check.
# The check is then decided from data (:mod:`autograder.judge`), never by code in the cell.
REFERENCE: Any = type("Reference", (), {"__repr__": lambda self: "REFERENCE"})()


Mistakes = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None


def _known(mistakes: Mistakes) -> Mapping[str, Any]:
    """The known mistakes, computed now when given as a function."""
    return (mistakes() if callable(mistakes) else mistakes) or {}


def _mistakes_data(mistakes: Mistakes, tree: bool = False) -> list[list[Any]]:
    """Known mistakes as data, for the record. Given as a function, they are computed only in
    the trusted run: nowhere else is the record's copy used, so a student's kernel (or a
    learner's, deciding against released values) skips that work."""
    from autograder.evidence import encode, encode_tree
    from autograder.judge import recording

    if callable(mistakes) and not recording():
        return []
    return [[str(advice), encode_tree(value) if tree else encode(value)]
            for advice, value in _known(mistakes).items()]


def _differential(check: str, actual: Any, name: str, options: dict[str, Any],
                  mistakes: Mistakes) -> None:
    """Hand a check without an expected value to the judge."""
    from autograder.evidence import Entry, encode, encode_tree
    from autograder.judge import submit

    tree = check == "tree"
    try:
        got = encode_tree(actual) if tree else encode(actual)
    except Exception as exc:  # noqa: BLE001 - a pytree JAX cannot flatten
        got = {"treedef": f"<{type(exc).__name__}>", "leaves": []} if tree else {
            "not_array": type(actual).__name__}
    submit(Entry(check, name, got, options, _mistakes_data(mistakes, tree)))


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


def _matches(actual: Any, value: Any, rtol: float, atol: float) -> bool:
    """True when ``actual`` passes the same comparison against ``value`` (a known mistake)."""
    try:
        if isinstance(value, np.ndarray):  # check_array: compare as one array
            _check_array(actual, value, "", rtol, atol, False)
        else:
            _check_tree(actual, value, "", {"rtol": rtol, "atol": atol})
    except Exception:  # noqa: BLE001 - something that cannot be compared matches nothing
        return False
    return True


def _with_mistakes(check: Any, actual: Any, mistakes: Mapping[str, Any] | None,
                   rtol: float, atol: float) -> None:
    """Run ``check()``; when it fails and ``actual`` is a known mistake, add that advice."""
    try:
        check()
    except AssertionError as exc:
        for advice, value in (mistakes or {}).items():
            if _matches(actual, value, rtol, atol):
                raise AssertionError(f"{exc} {advice}") from None
        raise


def check_array(
    actual: Any,
    expected: Any = REFERENCE,
    *,
    name: str = "result",
    rtol: float = 1e-5,
    atol: float = 1e-6,
    check_dtype: bool = False,
    mistakes: Mistakes = None,
) -> None:
    """Assert that ``actual`` matches ``expected`` in shape (and values within tolerance).

    Args:
        actual: what the learner's code returned (a ``jax.Array``, NumPy array or scalar).
        expected: the reference value; by default what the course's reference answer
            returned for this check (decided from data, see :mod:`autograder.judge`).
        name: how to call ``actual`` in the message, e.g. ``"normalize(x)"``.
        rtol: relative tolerance, as in ``numpy.allclose``.
        atol: absolute tolerance, as in ``numpy.allclose``.
        check_dtype: also require the same dtype.
        mistakes: known wrong answers, ``{advice: the value that mistake gives}``. When
            ``actual`` fails and matches one of them, the advice is added to the message, so
            the learner hears what the mistake is, not only that the numbers differ. A
            function returning that dict is computed only where the values are recorded.

    Raises:
        AssertionError: saying the expected and actual shape, the largest difference and
            where it is (NaN where a number was expected, or a uniform factor, named as
            such), and the dtypes when they matter (see the module docstring).
    """
    if expected is REFERENCE:
        _differential("array", actual, name, {"rtol": rtol, "atol": atol,
                                              "check_dtype": check_dtype}, mistakes)
        return
    arrays = {advice: np.asarray(value) for advice, value in _known(mistakes).items()}
    _with_mistakes(lambda: _check_array(actual, expected, name, rtol, atol, check_dtype),
                   actual, arrays, rtol, atol)


def _check_array(actual: Any, expected: Any, name: str, rtol: float, atol: float,
                 check_dtype: bool) -> None:
    if actual is None:
        raise AssertionError(f"{name} returned None: did the function forget to `return`?")
    try:
        got = np.asarray(actual)
    except Exception as exc:  # a tracer, a list of arrays, ...
        raise AssertionError(f"{name} is not an array ({type(actual).__name__}): {exc}") from None
    want = np.asarray(expected)
    if got.shape != want.shape:
        raise AssertionError(
            f"{name} has the wrong shape: expected shape {want.shape}, got shape {got.shape}."
            + _dtype_note(got, want, check_dtype)
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


def check_tree(actual: Any, expected: Any = REFERENCE, *, name: str = "result",
               mistakes: Mistakes = None, **tolerances: Any) -> None:
    """Assert that two pytrees have the same structure and matching leaves.

    Leaves are compared with :func:`check_array`; the message names the leaf's path, e.g.
    ``grads['w']``.

    Args:
        actual: what the learner's code returned.
        expected: the reference pytree (by default the reference answer's, as in
            :func:`check_array`).
        name: how to call ``actual`` in the message.
        mistakes: known wrong answers (whole pytrees), as in :func:`check_array`.
        **tolerances: ``rtol``, ``atol`` and ``check_dtype``, passed to :func:`check_array`.

    Raises:
        AssertionError: naming the first differing leaf, or the two structures.
    """
    if expected is REFERENCE:
        _differential("tree", actual, name, tolerances, mistakes)
        return
    _with_mistakes(lambda: _check_tree(actual, expected, name, tolerances), actual,
                   _known(mistakes),
                   tolerances.get("rtol", 1e-5), tolerances.get("atol", 1e-6))


def _check_tree(actual: Any, expected: Any, name: str, tolerances: dict) -> None:
    import jax

    got_leaves, got_def = jax.tree_util.tree_flatten_with_path(actual)
    want_leaves, want_def = jax.tree_util.tree_flatten_with_path(expected)
    if got_def != want_def:
        raise AssertionError(
            f"{name} has the wrong structure: expected {want_def}, got {got_def}."
        )
    for (path, got), (_, want) in zip(got_leaves, want_leaves, strict=True):
        check_array(got, want, name=f"{name}{jax.tree_util.keystr(path)}", **tolerances)


def check_scalar(actual: Any, expected: Any = REFERENCE, *, name: str = "result",
                 rtol: float = 1e-5,
                 atol: float = 1e-6, mistakes: Mistakes = None) -> None:
    """Assert that ``actual`` is a single number close to ``expected``.

    Args:
        actual: what the learner's code returned.
        expected: the reference number (by default the reference answer's, as in
            :func:`check_array`).
        name: how to call ``actual`` in the message.
        rtol: relative tolerance, as in ``numpy.allclose``.
        atol: absolute tolerance, as in ``numpy.allclose``.
        mistakes: known wrong answers, as in :func:`check_array`.

    Raises:
        AssertionError: when ``actual`` is not of shape ``()`` or not close to ``expected``.
    """
    if expected is REFERENCE:
        _differential("scalar", actual, name, {"rtol": rtol, "atol": atol}, mistakes)
        return
    shape = np.shape(actual)
    if shape != ():
        raise AssertionError(f"{name} should be a scalar (shape ()), got shape {shape}.")
    check_array(actual, expected, name=name, rtol=rtol, atol=atol, mistakes=_known(mistakes))


def check_value(actual: Any, expected: Any = REFERENCE, *, name: str,
                message: str = "{name}: expected {expected}, got {got}.") -> None:
    """Assert that a small Python value (a dtype name, a count, an exception's name) is right.

    Args:
        actual: a bool, number or string (or a tuple of them), e.g. ``str(out.dtype)``.
        expected: the right value; by default the reference answer's (see :func:`check_array`).
        name: how to call ``actual`` in the message.
        message: the message on failure, with ``{name}``, ``{expected}`` and ``{got}``.

    Raises:
        AssertionError: with ``message`` when the values differ.
    """
    from autograder.evidence import Entry, encode_plain
    from autograder.judge import submit

    entry = Entry("value", name, encode_plain(actual), {"message": message})
    alone = None if expected is REFERENCE else Entry("value", name, encode_plain(expected),
                                                     {"message": message})
    submit(entry, alone)
