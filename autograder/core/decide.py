"""Deciding one check from data: a trusted record against the evidence of a run.

A record (:class:`~autograder.core.evidence.Entry`) says what a check expects and how to judge
it: tolerances, known mistakes, a message. Evidence says only what the code under test
returned. :func:`decide` compares one pair with the shared comparison
(:mod:`autograder.core.compare`) and raises the course's message when it fails.

Pure code, used by both sides: the grader decides every check of a submission with it
(:mod:`autograder.grader.judging.verdict`), outside the student's kernel; a released exercise
decides its visible checks with it in the learner's kernel (:mod:`autograder.kernel.reporter`),
so the instant feedback in Colab and the grade agree word for word.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from autograder.core.compare import array_matches, assert_array_close
from autograder.core.evidence import Entry, NotAnArray, decode, decode_tree

MAX_SHOWN = 400  # characters of a submitted plain value quoted in a message


def _array_check(got: Any, want: Any, name: str, options: dict[str, Any],
                 hidden: bool = False) -> None:
    if isinstance(got, NotAnArray):
        raise AssertionError(f"{name} is not an array ({got.type_name}).")
    assert_array_close(got, want, name, float(options.get("rtol", 1e-5)),
                       float(options.get("atol", 1e-6)), bool(options.get("check_dtype", False)),
                       hidden)


def _scalar_check(got: Any, want: Any, name: str, options: dict[str, Any],
                  hidden: bool = False) -> None:
    if isinstance(got, np.ndarray) and got.shape != ():
        raise AssertionError(f"{name} should be a scalar (shape ()), got shape {got.shape}.")
    _array_check(got, want, name, options, hidden)


def _tree_check(got: Any, want: Any, name: str, options: dict[str, Any],
                hidden: bool = False) -> None:
    got_def, got_leaves = got
    want_def, want_leaves = want
    if got_def != want_def or len(got_leaves) != len(want_leaves):
        if hidden:  # a structure's static data could be the answer: only the learner's shown
            raise AssertionError(f"{name} has the wrong structure: got {_shown(got_def)}, "
                                 "which is not the structure expected.")
        raise AssertionError(f"{name} has the wrong structure: expected {want_def}, got "
                             f"{got_def}.")
    for (path, leaf), (_, want_leaf) in zip(got_leaves, want_leaves, strict=True):
        _array_check(leaf, want_leaf, f"{name}{path}", options, hidden)


_CHECKS = {"array": _array_check, "scalar": _scalar_check, "tree": _tree_check}


def _shown(value: Any) -> str:
    """A value for a message: strings as they are (printable characters only), else repr."""
    text = "".join(c for c in value if c.isprintable()) if isinstance(value, str) else repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."


HIDDEN_VALUE = "the hidden test's value (not shown)"  # {expected} in a hidden check's message


def _value_check(got: Any, want: Any, name: str, options: dict[str, Any],
                 hidden: bool = False) -> None:
    if got != want:
        template = str(options.get("message") or "{name}: expected {expected}, got {got}.")
        shown = HIDDEN_VALUE if hidden else _shown(want)
        raise AssertionError(template.format(name=name, expected=shown, got=_shown(got)))


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
    config = got.get("config") if isinstance(got, dict) else None
    if config:
        raise AssertionError(
            f"{name} changed JAX's global configuration while it was timed ({_shown(config)}). "
            "The change was undone before the reference ran, and an answer must not change "
            "jax.config when it is called: set what you need once, before the tests.")
    held = got.get("held") if isinstance(got, dict) else None
    if held:
        raise AssertionError(
            f"{name} was timed under JAX settings the tests could not put back as the notebook "
            f"started ({_shown(held)}): the reference ran under them too, so the time says "
            "nothing. Leave every `with` block of JAX settings you open (use `with ...:`, "
            "not `__enter__()`), then restart the kernel and run the notebook in order.")
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


def case_note(record: Entry) -> str:
    """`` Case: <description>.``: the test case a record's check covers (its ``"case"``
    option, written by :func:`autograder.kernel.hints.case`), or an empty string."""
    found = record.options.get("case")
    return f" Case: {str(found)[:200].rstrip('.')}." if found else ""


def decide(record: Entry, evidence: Entry) -> None:
    """Judge one check: the student's ``evidence`` against the trusted ``record``.

    Only the record's options and mistakes are used; the evidence contributes its value. The
    message of a failure ends with the test case the check covers, when the record names one
    (:func:`case_note`). A hidden record's message quotes nothing of its expected value: it
    names the case and the kind of difference (:mod:`autograder.core.compare`), a value
    check's ``{expected}`` reads :data:`HIDDEN_VALUE`, and a structure is shown as the
    learner's only.

    Raises:
        AssertionError: with the course's message (and a known mistake's advice) when the
            value does not pass.
        ValueError: when the evidence is not a well-formed value of the record's kind.
    """
    try:
        _decide(record, evidence)
    except AssertionError as exc:
        note = case_note(record)
        if note and note not in str(exc):
            raise AssertionError(f"{exc}{note}") from None
        raise


def _decide(record: Entry, evidence: Entry) -> None:
    name, options = record.name, record.options
    if record.check == "value":
        _value_check(evidence.got, record.got, name, options, record.hidden)
        return
    if record.check == "speedup":
        _speedup_check(evidence.got, name, options)
        return
    check = _CHECKS.get(record.check)
    if check is None:
        raise ValueError(f"unknown check kind {record.check!r}")
    got, want = _decoded(evidence), _decoded(record)
    try:
        check(got, want, name, options, record.hidden)
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
    return array_matches(got, value, float(options.get("rtol", 1e-5)),
                         float(options.get("atol", 1e-6)))
