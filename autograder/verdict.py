"""Deciding checks from data: the comparator, run by the grader outside the student's kernel.

A record (:class:`~autograder.evidence.Entry`) from the trusted run of the reference answers
says what a check expects and how to judge it: tolerances, known mistakes, a message. The
evidence from the sandboxed run says only what the student's code returned. :func:`decide`
compares one pair with the course's comparisons (:mod:`autograder.compare`), so its message
is the one a learner gets in the notebook; :func:`judge_cell` decides a whole test cell.

The same :func:`decide` runs in a released exercise, against the expected values written at
release time, so the instant feedback in Colab and the grade agree word for word.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.compare import _check_array, _matches
from autograder.evidence import Entry, NotAnArray, decode, decode_tree

MAX_SHOWN = 400  # characters of a submitted plain value quoted in a message


def _array_check(got: Any, want: Any, name: str, options: dict[str, Any]) -> None:
    if isinstance(got, NotAnArray):
        raise AssertionError(f"{name} is not an array ({got.type_name}).")
    _check_array(got, want, name, float(options.get("rtol", 1e-5)),
                 float(options.get("atol", 1e-6)), bool(options.get("check_dtype", False)))


def _scalar_check(got: Any, want: Any, name: str, options: dict[str, Any]) -> None:
    if isinstance(got, np.ndarray) and got.shape != ():
        raise AssertionError(f"{name} should be a scalar (shape ()), got shape {got.shape}.")
    _array_check(got, want, name, options)


def _tree_check(got: Any, want: Any, name: str, options: dict[str, Any]) -> None:
    got_def, got_leaves = got
    want_def, want_leaves = want
    if got_def != want_def or len(got_leaves) != len(want_leaves):
        raise AssertionError(f"{name} has the wrong structure: expected {want_def}, got "
                             f"{got_def}.")
    for (path, leaf), (_, want_leaf) in zip(got_leaves, want_leaves, strict=True):
        _array_check(leaf, want_leaf, f"{name}{path}", options)


_CHECKS = {"array": _array_check, "scalar": _scalar_check, "tree": _tree_check}


def _shown(value: Any) -> str:
    """A value for a message: strings as they are (printable characters only), else repr."""
    text = "".join(c for c in value if c.isprintable()) if isinstance(value, str) else repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."


def _value_check(got: Any, want: Any, name: str, options: dict[str, Any]) -> None:
    if got != want:
        template = str(options.get("message") or "{name}: expected {expected}, got {got}.")
        raise AssertionError(template.format(name=name, expected=_shown(want), got=_shown(got)))


def measured_ratio(got: Any) -> float | None:
    """The speedup a timing test's evidence reports, or None when it holds no finite number."""
    ratio = got.get("ratio") if isinstance(got, dict) else None
    if type(ratio) not in (int, float):
        return None
    try:
        value = float(ratio)
    except OverflowError:
        return None
    return value if np.isfinite(value) else None


def _speedup_check(got: Any, name: str, options: dict[str, Any]) -> None:
    required = float(options.get("required", 1.5))
    threads = got.get("threads") if isinstance(got, dict) else None
    if threads:
        raise AssertionError(
            f"{name}: another thread was running code from the notebook while the timing test "
            f"measured ({_shown(', '.join(map(str, threads)))}). A timing test measures the "
            "answer alone: do not start threads in an answer.")
    ratio = measured_ratio(got)
    if ratio is None or ratio < required:
        shown = f"{ratio:.2f}x" if ratio is not None else "not measured"
        raise AssertionError(
            f"{name} is only {shown} as fast as {options.get('reference', 'the reference')}; "
            f"at least {required:.1f}x is expected. The work should run as one compiled call "
            "(jax.jit; with vmap inside it where a batch is asked for), not op by op or "
            "example by example from Python.")


def _decoded(entry: Entry) -> Any:
    return decode_tree(entry.got) if entry.check == "tree" else decode(entry.got)


def decide(record: Entry, evidence: Entry) -> None:
    """Judge one check: the student's ``evidence`` against the trusted ``record``.

    Only the record's options and mistakes are used; the evidence contributes its value.

    Raises:
        AssertionError: with the course's message (and a known mistake's advice) when the
            value does not pass.
        ValueError: when the evidence is not a well-formed value of the record's kind.
    """
    name, options = record.name, record.options
    if record.check == "value":
        _value_check(evidence.got, record.got, name, options)
        return
    if record.check == "speedup":
        _speedup_check(evidence.got, name, options)
        return
    check = _CHECKS.get(record.check)
    if check is None:
        raise ValueError(f"unknown check kind {record.check!r}")
    got, want = _decoded(evidence), _decoded(record)
    try:
        check(got, want, name, options)
    except AssertionError as exc:
        for advice, value in record.mistakes:
            if _is_mistake(record.check, got, value, options):
                raise AssertionError(f"{exc} {advice}") from None
        raise


def _is_mistake(kind: str, got: Any, encoded: Any, options: dict[str, Any]) -> bool:
    """True when ``got`` passes the record's comparison against a known wrong value."""
    try:
        value = decode_tree(encoded) if kind == "tree" else decode(encoded)
    except ValueError:
        return False
    if kind == "tree":
        try:
            _tree_check(got, value, "", options)
        except Exception:  # noqa: BLE001 - what cannot be compared matches nothing
            return False
        return True
    if isinstance(got, NotAnArray) or got is None:
        return False
    return _matches(got, value, float(options.get("rtol", 1e-5)),
                    float(options.get("atol", 1e-6)))


@dataclass
class CellVerdict:
    """The grader's decision on one test cell."""

    passed: bool
    message: str = ""
    missing: bool = False  # a check left no evidence (the cell stopped before it)
    checks: int = 0  # how many checks were decided


def judge_cell(records: list[Entry], evidence: list[Entry]) -> CellVerdict:
    """Decide a test cell: every recorded check needs its own passing evidence.

    Records and evidence are matched by check kind, name and order of appearance. A check
    without evidence fails (the cell stopped before it); so does a cell that published more
    evidence for some check than the reference run did (no honest run does).
    """
    pools: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for item in evidence:
        pools[item.key].append(item)
    made = Counter(r.key for r in records)
    for key, items in pools.items():
        if len(items) > made.get(key, 0):
            return CellVerdict(False, f"the tests reported {len(items)} results for "
                               f"{key[1][:80]!r} where they make {made.get(key, 0)}; "
                               "the output was tampered with")
    used: Counter = Counter()
    for n, record in enumerate(records):
        items = pools.get(record.key, [])
        index = used[record.key]
        used[record.key] += 1
        if index >= len(items):
            return CellVerdict(False, f"the check of {record.name} did not run", True, n)
        try:
            decide(record, items[index])
        except AssertionError as exc:
            return CellVerdict(False, str(exc), False, n + 1)
        except Exception:  # noqa: BLE001 - evidence is the student's: it fails, never crashes
            return CellVerdict(False, f"the result of {record.name} could not be read", False,
                               n + 1)
    return CellVerdict(True, "", False, len(records))


def timings(records: list[Entry], evidence: list[Entry]) -> dict[str, float]:
    """The first timing test of a cell: measured speedup and the record's requirement."""
    required = {r.name: r.options.get("required") for r in records if r.check == "speedup"}
    for item in evidence:
        ratio = measured_ratio(item.got)
        if item.check == "speedup" and item.name in required and ratio is not None:
            return {"speedup": round(ratio, 2), "required": float(required[item.name])}
    return {}


def record_of(reference: Entry) -> Entry:
    """The trusted record a reference answer's entry makes.

    A differential check expects what the reference returned; a check with a rule of its own
    (a jit or purity check, a timing test) expects the rule's value, and the reference must
    meet it too (:func:`reference_failure`).
    """
    options = dict(reference.options)
    if "rule" not in options:
        return reference
    return Entry(reference.check, reference.name, options.pop("rule"), options,
                 reference.mistakes, reference.hidden)


def reference_failure(reference: Entry) -> str | None:
    """Why the reference answer fails its own rule check (None when it passes, or for a
    timing test, which the trusted run does not time)."""
    if reference.check == "speedup":
        return None
    try:
        decide(record_of(reference), reference)
    except (AssertionError, ValueError) as exc:
        return str(exc)
    return None
