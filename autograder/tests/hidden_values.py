"""Finding a hidden test's expected values in what a learner receives (issue 38, item 4).

A hidden check's expected value lives only in the grader's trusted records; a grading run
must not put it in any file a learner gets. This module gives the tests the three pieces:

- :func:`probes`: wrong answers for a record (the value scaled and shifted, NaN, the wrong
  shape or dtype, each known mistake, another structure or plain value), so that every kind
  of failure message of the check is produced;
- :func:`expected_numbers` and :func:`found_numbers`: the record's expected entries, and the
  numbers a text shows *in any formatting* (repr, str, rounded, scientific, inside an array
  print), matched at the precision the text printed them (``19.31`` matches 19.3125);
- :func:`leaked`: which expected numbers a text shows, leaving out numbers printed with fewer
  than three significant digits (``0.5``, ``2``: they are everywhere; four where a text also
  reports visible failures, whose differences are printed with three) and those that are
  public anyway (an input in a check's name, a number of the released exercise, the
  learner's own code).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

import numpy as np

from autograder.core.evidence import Entry, decode, decode_tree, encode

MIN_DIGITS = 3  # a number printed with fewer significant digits is too common to count
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _leaves(record: Entry) -> list[Any]:
    """The arrays (or plain value) a record expects."""
    if record.check == "tree":
        return [leaf for _, leaf in decode_tree(record.got)[1]]
    if record.check in ("array", "scalar"):
        return [decode(record.got)]
    if record.check == "value":
        return [record.got]
    return []


def expected_numbers(record: Entry) -> list[float]:
    """Every finite number a record expects, as floats (plain values' numbers included)."""
    found: list[float] = []
    for leaf in _leaves(record):
        if isinstance(leaf, np.ndarray) and leaf.dtype.kind in "biufc" or \
                isinstance(leaf, np.ndarray) and leaf.dtype.kind == "V":
            values = np.asarray(leaf, dtype=np.complex128 if leaf.dtype.kind == "c"
                                else np.float64).ravel()
            parts = np.concatenate([values.real, values.imag]) if leaf.dtype.kind == "c" \
                else values
            found += [float(v) for v in parts if np.isfinite(v)]
        elif isinstance(leaf, (int, float)) and not isinstance(leaf, bool):
            found.append(float(leaf))
        elif isinstance(leaf, (list, str)):
            found += [float(t) for t in _NUMBER.findall(str(leaf))]
    return found


def _digits(token: str) -> int:
    """Significant digits a number was printed with."""
    mantissa = re.split(r"[eE]", token.lstrip("+-"))[0].replace(".", "").lstrip("0")
    return len(mantissa)


def found_numbers(text: str, min_digits: int = MIN_DIGITS) -> list[tuple[str, float, float]]:
    """The numbers ``text`` shows with at least ``min_digits`` significant digits: each as
    ``(token, value, half a unit of its last printed digit)``."""
    found = []
    for token in _NUMBER.findall(text):
        digits = _digits(token)
        if digits < min_digits:
            continue
        try:
            value = float(token)
        except ValueError:
            continue
        if not np.isfinite(value) or value == 0:
            continue
        exponent = int(np.floor(np.log10(abs(value))))
        found.append((token, value, 0.5 * 10.0 ** (exponent - digits + 1)))
    return found


class Numbers:
    """A set of numbers, looked up at a printed precision, sign ignored."""

    def __init__(self, values: list[float]) -> None:
        self.sorted = sorted({abs(v) for v in values if np.isfinite(v) and v != 0})

    def near(self, value: float, tolerance: float) -> bool:
        """Whether some number of the set rounds to ``value`` at ``tolerance``."""
        at = bisect_left(self.sorted, abs(value) - tolerance * 1.0001)
        return at < len(self.sorted) and self.sorted[at] <= abs(value) + tolerance * 1.0001


def leaked(text: str, secret: Numbers, public: Numbers, public_text: str = "",
           min_digits: int = MIN_DIGITS) -> list[str]:
    """The numbers in ``text`` (printed with ``min_digits`` or more significant digits) that
    are expected values of ``secret`` and not public: near no number of ``public`` nor any
    number ``public_text`` shows (the learner's own code, the released exercise), at the
    precision ``text`` printed them."""
    shown = Numbers([float(t) for t in _NUMBER.findall(public_text) if _finite(t)])
    return sorted({token for token, value, tol in found_numbers(text, min_digits)
                   if secret.near(value, tol) and not public.near(value, tol)
                   and not shown.near(value, tol)})


def _finite(token: str) -> bool:
    try:
        return bool(np.isfinite(float(token)))
    except (ValueError, OverflowError):
        return False


def _wrong_arrays(want: Any) -> list[Any]:
    """Wrong answers for one expected array: off in value, NaN, wrong shape, wrong dtype."""
    if not isinstance(want, np.ndarray):
        return [None]
    if want.dtype == bool:
        return [~want, np.zeros(want.shape + (2,), bool)]
    base = want.astype(np.float64) if want.dtype.kind != "c" else want
    wrong = [(base * 1.37 + 0.3).astype(want.dtype) if want.dtype.kind in "fcV"
             else want + 7, np.zeros(want.shape + (2,), want.dtype), None]
    if want.dtype.kind in "fV" and want.size:
        wrong.append(np.full(want.shape, np.nan, np.float32))
        wrong.append(np.round(base).astype(np.int32))
    return wrong


def probes(record: Entry) -> list[Entry]:
    """Evidence of wrong answers to ``record``'s check, one per kind of failure (and each of
    its known mistakes)."""
    made: list[Any] = []
    if record.check in ("array", "scalar"):
        made = [encode(v) for v in _wrong_arrays(decode(record.got))]
        made += [m[1] for m in record.mistakes]
    elif record.check == "tree":
        structure, leaves = decode_tree(record.got)
        for i, (_, leaf) in enumerate(leaves):
            for wrong in _wrong_arrays(leaf)[:2]:
                changed = [[p, encode(wrong if j == i else v)] for j, (p, v) in enumerate(leaves)]
                made.append({"treedef": structure, "leaves": changed})
        made.append({"treedef": "PyTreeDef(*)", "leaves": [["", encode(np.zeros(1))]]})
        made += [m[1] for m in record.mistakes]
    elif record.check == "value":
        made = ["<a wrong value>", -987654.25, None]
    return [Entry(record.check, record.name, got) for got in made]
