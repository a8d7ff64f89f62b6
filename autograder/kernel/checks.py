"""The checks a notebook's test cells call: ``check_array``, ``check_tree``, ``check_scalar``,
``check_value``. Runs in the learner's kernel.

Without an expected value (the course's test cells), a check hands what it saw to
:mod:`autograder.kernel.reporter`, and the value is judged against the reference answer's
outside the kernel, or against the values released with the exercise. With an explicit
expected value, it compares here, with the shared comparison of
:mod:`autograder.core.compare` (whose docstring says what a message names).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from autograder.core.compare import array_matches, assert_array_close

# The default ``expected``: what the course's reference answer returned for the same check.
# The check is then decided from data (:mod:`autograder.kernel.reporter`), never by code in
# the cell.
REFERENCE: Any = type("Reference", (), {"__repr__": lambda self: "REFERENCE"})()


Mistakes = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None


def _known(mistakes: Mistakes) -> Mapping[str, Any]:
    """The known mistakes, computed now when given as a function."""
    return (mistakes() if callable(mistakes) else mistakes) or {}


def _mistakes_data(mistakes: Mistakes, tree: bool = False) -> list[list[Any]]:
    """Known mistakes as data, for the record. Given as a function, they are computed only in
    the trusted run: nowhere else is the record's copy used, so a student's kernel (or a
    learner's, deciding against released values) skips that work."""
    from autograder.core.evidence import encode, encode_tree
    from autograder.kernel.reporter import recording

    if callable(mistakes) and not recording():
        return []
    return [[str(advice), encode_tree(value) if tree else encode(value)]
            for advice, value in _known(mistakes).items()]


def _differential(check: str, actual: Any, name: str, options: dict[str, Any],
                  mistakes: Mistakes) -> None:
    """Hand a check without an expected value to the judge."""
    from autograder.core.evidence import Entry, encode, encode_tree
    from autograder.kernel.reporter import submit

    tree = check == "tree"
    try:
        got = encode_tree(actual) if tree else encode(actual)
    except Exception as exc:  # noqa: BLE001 - a pytree JAX cannot flatten
        got = {"treedef": f"<{type(exc).__name__}>", "leaves": []} if tree else {
            "not_array": type(actual).__name__}
    submit(Entry(check, name, got, options, _mistakes_data(mistakes, tree)))


def _matches(actual: Any, value: Any, rtol: float, atol: float) -> bool:
    """True when ``actual`` passes the same comparison against ``value`` (a known mistake)."""
    if isinstance(value, np.ndarray):  # check_array: compare as one array
        return array_matches(actual, value, rtol, atol)
    try:
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
            returned for this check (decided from data, see :mod:`autograder.kernel.reporter`).
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
    _with_mistakes(lambda: assert_array_close(actual, expected, name, rtol, atol, check_dtype),
                   actual, arrays, rtol, atol)


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
    from autograder.core.evidence import Entry, encode_plain
    from autograder.kernel.reporter import submit

    entry = Entry("value", name, encode_plain(actual), {"message": message})
    alone = None if expected is REFERENCE else Entry("value", name, encode_plain(expected),
                                                     {"message": message})
    submit(entry, alone)
