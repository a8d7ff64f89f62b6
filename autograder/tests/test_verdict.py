"""Tests of autograder.grader.judging.verdict: checks decided from data, with the notebook's own
messages.

A record (the reference answer's entry) says what a check expects and how to judge it; the
evidence (the student's entry) contributes only its value. Each attack below pairs with the
honest case it imitates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest

from autograder.core.evidence import Entry, encode, encode_tree
from autograder.grader.judging.verdict import (
    CellVerdict,
    decide,
    judge_cell,
    record_of,
    reference_failure,
    timings,
)
from autograder.kernel.checks import check_array, check_scalar, check_tree, check_value

DEFAULTS = {"rtol": 1e-5, "atol": 1e-6, "check_dtype": False}  # what check_array records


def _array(name: str, value: Any, **options: Any) -> Entry:
    """An ``array`` entry of ``value`` (a record when given options, else evidence)."""
    return Entry("array", name, encode(value), options)


def _message(check: Callable[[], None]) -> str:
    """The AssertionError message of ``check()`` (which must fail)."""
    with pytest.raises(AssertionError) as info:
        check()
    return str(info.value)


def test_a_correct_value_passes() -> None:
    """Does evidence equal to the record, or within its tolerance, pass?"""
    want = jnp.array([0.0, 2.0, 4.0])
    record = _array("double(x)", want, **DEFAULTS)
    decide(record, _array("double(x)", want))
    decide(record, _array("double(x)", np.array([0.0, 2.0, 4.0 + 1e-6], np.float64)))


@pytest.mark.parametrize("got, want", [
    (jnp.array([1.0, 7.0, 3.0]), jnp.array([1.0, 2.0, 3.0])),
    (jnp.zeros(2), jnp.zeros(3)),
    (jnp.array([8.0, 16.0, -24.0]), jnp.array([1.0, 2.0, -3.0])),
    (jnp.array([1.0, jnp.nan]), jnp.array([1.0, 2.0])),
    (jnp.array([1, 2], jnp.int32), jnp.array([1.5, 2.0], jnp.float32)),
    (np.array([True, False]), np.array([True, True])),
    (jnp.ones((2, 3), jnp.bfloat16), jnp.zeros((2, 3), jnp.bfloat16)),
], ids=["values", "shape", "factor", "nan", "int-for-float", "bool", "bfloat16"])
def test_wrong_value_message_is_the_notebooks(got: Any, want: Any) -> None:
    """Does a wrong value fail with word for word the message check_array gives for the
    same arrays with an explicit expected value?"""
    expected = _message(lambda: check_array(got, want, name="f(x)"))
    assert _message(lambda: decide(_array("f(x)", want, **DEFAULTS),
                                   _array("f(x)", got))) == expected


def test_check_dtype_from_the_record() -> None:
    """Is the dtype compared when the record asks for it, with check_array's message?"""
    got, want = jnp.ones(2, jnp.float32), np.ones(2, np.float64)
    decide(_array("y", want, **DEFAULTS), _array("y", got))
    expected = _message(lambda: check_array(got, want, name="y", check_dtype=True))
    record = _array("y", want, **{**DEFAULTS, "check_dtype": True})
    assert _message(lambda: decide(record, _array("y", got))) == expected


def test_none_is_reported_as_a_missing_return() -> None:
    """Is None from the student's function reported as check_array reports it?"""
    expected = _message(lambda: check_array(None, np.ones(2), name="f(x)"))
    got = Entry("array", "f(x)", encode(None))
    assert _message(lambda: decide(_array("f(x)", np.ones(2)), got)) == expected


def test_a_known_mistake_gets_its_advice() -> None:
    """Does a value matching one of the record's mistakes get its advice appended, and a
    value matching none get the plain message?"""
    want, transposed = np.ones((3, 2)), np.ones((2, 3))
    record = Entry("array", "f(x)", encode(want), DEFAULTS,
                   [["It is the transpose.", encode(transposed)]])
    plain = _message(lambda: check_array(transposed, want, name="f(x)"))
    assert _message(lambda: decide(record, _array("f(x)", transposed))) == (
        plain + " It is the transpose.")
    assert _message(lambda: check_array(transposed, want, name="f(x)",
                                        mistakes={"It is the transpose.": transposed})) == (
        plain + " It is the transpose.")
    other = np.zeros((2, 3))
    assert "transpose" not in _message(lambda: decide(record, _array("f(x)", other)))


def test_tolerances_come_from_the_record_only() -> None:
    """Does evidence claiming a huge tolerance still fail, while the record's own tolerance
    lets a close value pass?"""
    want, got = np.array([1.0, 2.0]), np.array([1.05, 2.1])
    strict = _array("f(x)", want, **DEFAULTS)
    forged = Entry("array", "f(x)", encode(got), {"rtol": 1e9, "atol": 1e9})
    expected = _message(lambda: check_array(got, want, name="f(x)"))
    assert _message(lambda: decide(strict, forged)) == expected
    decide(_array("f(x)", want, rtol=0.1, atol=0.0), _array("f(x)", got))  # honest


def test_mistakes_and_messages_come_from_the_record_only() -> None:
    """Do a forged mistake, a forged message and a forged structure in the evidence leave
    the verdict and its message as the record makes them?"""
    want, got = np.array([1.0, 2.0]), np.array([5.0, 5.0])
    record = _array("f(x)", want, **DEFAULTS)
    honest = _message(lambda: decide(record, _array("f(x)", got)))
    forged = Entry("array", "f(x)", encode(got), {"message": "all good", "check_dtype": True},
                   [["Nothing to see here.", encode(got)]])
    assert _message(lambda: decide(record, forged)) == honest
    value_record = Entry("value", "dtype", "float32", {"message": "{name} is {got}."})
    forged_value = Entry("value", "dtype", "int32", {"message": "fine"})
    assert _message(lambda: decide(value_record, forged_value)) == "dtype is int32."


def test_scalar_shape_message() -> None:
    """Does a scalar check refuse shape (1,) with check_scalar's message, and pass a 0-d
    value of any kind?"""
    record = Entry("scalar", "loss", encode(np.float32(0.5)), {"rtol": 1e-5, "atol": 1e-6})
    expected = _message(lambda: check_scalar(jnp.array([0.5]), 0.5, name="loss"))
    got = Entry("scalar", "loss", encode(jnp.array([0.5])))
    assert _message(lambda: decide(record, got)) == expected
    decide(record, Entry("scalar", "loss", encode(jnp.float32(0.5))))
    decide(record, Entry("scalar", "loss", encode(0.5)))
    wrong = _message(lambda: check_scalar(jnp.float32(0.7), 0.5, name="loss"))
    assert _message(lambda: decide(record, Entry("scalar", "loss",
                                                 encode(jnp.float32(0.7))))) == wrong


def test_tree_structure_and_leaf_messages() -> None:
    """Does a tree check give check_tree's messages for a structure change and for a wrong
    leaf, naming the leaf by its path?"""
    want = {"w": np.ones(2), "b": np.ones(1)}
    record = Entry("tree", "grads", encode_tree(want), {})
    decide(record, Entry("tree", "grads", encode_tree({"w": jnp.ones(2), "b": jnp.ones(1)})))
    changed = {"w": jnp.ones(2)}
    expected = _message(lambda: check_tree(changed, want, name="grads"))
    assert expected.startswith("grads has the wrong structure")
    assert _message(lambda: decide(record, Entry("tree", "grads",
                                                 encode_tree(changed)))) == expected
    wrong_leaf = {"w": jnp.ones(2), "b": jnp.zeros(1)}
    expected = _message(lambda: check_tree(wrong_leaf, want, name="grads"))
    message = _message(lambda: decide(record, Entry("tree", "grads", encode_tree(wrong_leaf))))
    assert message == expected and message.startswith("grads['b'] ")


def test_tree_mistakes() -> None:
    """Does a tree matching a recorded wrong pytree get that advice?"""
    record = Entry("tree", "grads", encode_tree({"w": np.zeros(2)}), {},
                   [["It is the batch gradient.", encode_tree({"w": np.ones(2)})]])
    message = _message(lambda: decide(record, Entry("tree", "grads",
                                                    encode_tree({"w": jnp.ones(2)}))))
    assert message.endswith(" It is the batch gradient.")
    message = _message(lambda: decide(record, Entry("tree", "grads",
                                                    encode_tree({"w": jnp.full(2, 3.0)}))))
    assert "batch gradient" not in message


def test_value_check_uses_the_records_message_template() -> None:
    """Does a value check pass on equality and otherwise fail with the record's template,
    like check_value with an explicit expected value?"""
    template = "{name} should be {expected}, not {got}."
    record = Entry("value", "str(y.dtype)", "float32", {"message": template})
    decide(record, Entry("value", "str(y.dtype)", "float32"))
    expected = _message(lambda: check_value("int32", "float32", name="str(y.dtype)",
                                            message=template))
    assert expected == "str(y.dtype) should be float32, not int32."
    assert _message(lambda: decide(record, Entry("value", "str(y.dtype)", "int32"))) == expected
    plain = Entry("value", "n", 3, {})
    assert _message(lambda: decide(plain, Entry("value", "n", 4))) == "n: expected 3, got 4."


def test_value_check_quotes_submitted_text_safely() -> None:
    """Is a submitted string quoted without control characters and cut to a bounded length?"""
    record = Entry("value", "name", "ok", {"message": "{got}"})
    message = _message(lambda: decide(record, Entry("value", "name", "\x1b[31mred\n" + "x" * 999)))
    assert "\x1b" not in message and "\n" not in message and len(message) <= 403


@pytest.mark.parametrize("ratio, passes", [(1.49, False), (1.5, True), (12.0, True),
                                           (float("nan"), False), (None, False)])
def test_speedup_against_the_records_requirement(ratio: float | None, passes: bool) -> None:
    """Is a measured speedup judged against the record's ``required``, not the evidence's?"""
    record = Entry("speedup", "jitted f", {}, {"required": 1.5, "reference": "plain f"})
    got = {} if ratio is None else {"ratio": ratio}
    evidence = Entry("speedup", "jitted f", got, {"required": 0.0})  # a forged, lower bar
    if passes:
        decide(record, evidence)
        return
    message = _message(lambda: decide(record, evidence))
    assert message.startswith("jitted f is only ") and "as fast as plain f" in message
    assert "at least 1.5x is expected" in message
    if ratio is None:
        assert "not measured" in message


def test_not_an_array_fails() -> None:
    """Does a value that was not an array fail, naming its type, where an array is expected?"""
    record = _array("f(x)", np.ones(2), **DEFAULTS)
    got = Entry("array", "f(x)", encode([jnp.ones(2), jnp.ones(3)]))
    assert _message(lambda: decide(record, got)) == "f(x) is not an array (list)."
    scalar = Entry("scalar", "loss", encode(np.float32(1.0)), {})
    assert "not an array (str)" in _message(
        lambda: decide(scalar, Entry("scalar", "loss", encode("1.0"))))


def test_malformed_evidence_is_a_value_error() -> None:
    """Does evidence that is no encoding raise ValueError (not pass, not crash otherwise)?"""
    record = _array("f(x)", np.ones(2), **DEFAULTS)
    for got in (None, "AAAA", {"dtype": "float32", "shape": [2], "b64": "AAAA"},
                {"dtype": "object", "shape": [2], "b64": ""}):
        with pytest.raises(ValueError):
            decide(record, Entry("array", "f(x)", got))


# judge_cell: a whole test cell.

def _records() -> list[Entry]:
    return [_array("f(a)", np.arange(3.0), **DEFAULTS), _array("f(b)", np.ones(2), **DEFAULTS),
            Entry("value", "f is jitted", "ok", {"message": "{got}"})]


def _evidence() -> list[Entry]:
    return [_array("f(a)", jnp.arange(3.0)), _array("f(b)", jnp.ones(2)),
            Entry("value", "f is jitted", "ok")]


def test_cell_all_pass() -> None:
    """Does a cell whose every check has passing evidence pass, counting its checks?"""
    assert judge_cell(_records(), _evidence()) == CellVerdict(True, "", False, 3)
    assert judge_cell([], []) == CellVerdict(True, "", False, 0)


def test_cell_evidence_order_between_names_does_not_matter() -> None:
    """Does evidence of differently named checks pass in any order (each matched by name)?"""
    assert judge_cell(_records(), list(reversed(_evidence()))).passed


def test_cell_missing_evidence() -> None:
    """Is a check without evidence (the cell stopped before it) missing, not decided?"""
    verdict = judge_cell(_records(), _evidence()[:1])
    assert not verdict.passed and verdict.missing and verdict.checks == 1
    assert verdict.message == "the check of f(b) did not run"
    assert judge_cell(_records(), []).missing


def test_cell_wrong_value() -> None:
    """Does a wrong value fail the cell with decide's message, not as missing?"""
    evidence = _evidence()
    evidence[1] = _array("f(b)", jnp.zeros(2))
    verdict = judge_cell(_records(), evidence)
    expected = _message(lambda: check_array(jnp.zeros(2), np.ones(2), name="f(b)"))
    assert verdict == CellVerdict(False, expected, False, 2)


def test_cell_observe_failure() -> None:
    """Does a failed rule check's message come through as the cell's message?"""
    evidence = _evidence()
    evidence[2] = Entry("value", "f is jitted", "f is a plain function, not a jitted one.")
    verdict = judge_cell(_records(), evidence)
    assert not verdict.passed and verdict.message == "f is a plain function, not a jitted one."


def test_cell_evidence_for_a_check_the_record_lacks_is_tampering() -> None:
    """Does evidence for a check the reference run never made fail the cell as tampered,
    even when every recorded check passes?"""
    verdict = judge_cell(_records(), [*_evidence(), _array("extra", jnp.ones(1))])
    assert not verdict.passed and not verdict.missing
    assert "tampered" in verdict.message and "'extra'" in verdict.message


def test_cell_forged_entry_before_the_real_one_is_tampering() -> None:
    """Does a passing forged entry published before the real (failing) one fail the cell as
    tampered, rather than being taken as the check's evidence?"""
    evidence = _evidence()
    evidence[1] = _array("f(b)", jnp.zeros(2))  # the real, wrong result
    forged = _array("f(b)", np.ones(2))
    verdict = judge_cell(_records(), [forged, *evidence])
    assert not verdict.passed and "tampered" in verdict.message
    assert "reported 2 results for 'f(b)' where they make 1" in verdict.message


def test_cell_kind_is_part_of_the_key() -> None:
    """Does evidence of another check kind under a recorded name fail (not stand in)?"""
    evidence = _evidence()
    evidence[0] = Entry("scalar", "f(a)", encode(np.float32(0.0)))
    verdict = judge_cell(_records(), evidence)
    assert not verdict.passed and "tampered" in verdict.message


def test_cell_repeated_names_match_in_order() -> None:
    """With two checks of one name, is the first evidence judged against the first record
    and the second against the second, so swapped results fail?"""
    records = [_array("f(x)", np.zeros(2), **DEFAULTS), _array("f(x)", np.ones(2), **DEFAULTS)]
    assert judge_cell(records, [_array("f(x)", np.zeros(2)), _array("f(x)", np.ones(2))]).passed
    verdict = judge_cell(records, [_array("f(x)", np.ones(2)), _array("f(x)", np.zeros(2))])
    assert not verdict.passed and not verdict.missing and verdict.checks == 1
    verdict = judge_cell(records, [_array("f(x)", np.zeros(2))])
    assert verdict.missing and verdict.checks == 1


@pytest.mark.parametrize("got", [None, "junk", {"dtype": "float32", "shape": [3], "b64": "!!"},
                                 {"dtype": "object", "shape": [3], "b64": ""},
                                 {"dtype": "float32", "shape": [9], "b64": "AAAA"}])
def test_cell_malformed_evidence_fails_without_raising(got: Any) -> None:
    """Does evidence that cannot be read fail the cell, never raise out of the grader?"""
    evidence = _evidence()
    evidence[0] = Entry("array", "f(a)", got)
    verdict = judge_cell(_records(), evidence)
    assert verdict == CellVerdict(False, "the result of f(a) could not be read", False, 1)


def test_cell_malformed_tree_fails_without_raising() -> None:
    """Does a pytree entry that is not one fail the cell instead of raising?"""
    records = [Entry("tree", "grads", encode_tree({"w": np.ones(2)}), {})]
    for got in (None, {"leaves": 3}, {"leaves": [["['w']", {"dtype": "O", "shape": [],
                                                            "b64": ""}]]}):
        verdict = judge_cell(records, [Entry("tree", "grads", got)])
        assert not verdict.passed and "could not be read" in verdict.message


def test_cell_unknown_dtype_fails_without_raising() -> None:
    """Does evidence naming a dtype no library knows fail the cell rather than raise?"""
    evidence = _evidence()
    evidence[0] = Entry("array", "f(a)", {"dtype": "float33", "shape": [0], "b64": ""})
    assert not judge_cell(_records(), evidence).passed


def test_cell_boolean_shape_fails_without_raising() -> None:
    """Does evidence with ``shape: [true]`` fail the cell rather than raise?"""
    evidence = _evidence()
    evidence[0] = Entry("array", "f(a)", {"dtype": "float32", "shape": [True], "b64": "AAAAAA=="})
    assert not judge_cell(_records(), evidence).passed


def test_cell_huge_integer_speedup_fails_without_raising() -> None:
    """Does a forged speedup of 10**400 (valid JSON) fail the cell rather than raise?"""
    records = [Entry("speedup", "jitted f", {}, {"required": 1.5})]
    verdict = judge_cell(records, [Entry("speedup", "jitted f", {"ratio": 10**400})])
    assert not verdict.passed


def test_timings() -> None:
    """Does timings report the first measured speedup with the record's requirement, and
    ignore timing evidence for a test the record lacks?"""
    records = [Entry("speedup", "jitted f", {}, {"required": 2.0}),
               Entry("speedup", "batched f", {}, {"required": 3.0})]
    evidence = [Entry("speedup", "unknown", {"ratio": 99.0}),
                Entry("speedup", "jitted f", {"ratio": 4.567}, {"required": 0.1}),
                Entry("speedup", "batched f", {"ratio": 9.0})]
    assert timings(records, evidence) == {"speedup": 4.57, "required": 2.0}
    assert timings(records, [Entry("speedup", "jitted f", {})]) == {}
    assert timings([], evidence) == {}


def test_timings_huge_integer_ratio_does_not_raise() -> None:
    """Is a forged ratio of 10**400 handled (reported or left out) without raising?"""
    records = [Entry("speedup", "jitted f", {}, {"required": 2.0})]
    timings(records, [Entry("speedup", "jitted f", {"ratio": 10**400})])


def test_record_of_and_reference_failure_for_a_rule() -> None:
    """Does a rule check's reference entry become a record expecting the rule ("ok"), and
    does a reference that fails its rule say why?"""
    options = {"message": "{got}", "rule": "ok"}
    passing = Entry("value", "f is jitted", "ok", dict(options), hidden=True)
    record = record_of(passing)
    assert record == Entry("value", "f is jitted", "ok", {"message": "{got}"}, [], True)
    assert passing.options == options  # the reference entry is not changed
    assert reference_failure(passing) is None
    failing = Entry("value", "f is jitted", "f is a plain function.", dict(options))
    assert record_of(failing).got == "ok"
    assert reference_failure(failing) == "f is a plain function."


def test_record_of_a_differential_check_is_itself() -> None:
    """Is a differential check's reference entry its own record, which it passes?"""
    entry = _array("f(x)", np.ones(2), **DEFAULTS)
    assert record_of(entry) is entry and reference_failure(entry) is None


def test_reference_failure_skips_timing() -> None:
    """Is a timing test's reference entry (recorded, never timed) not a failure?"""
    entry = Entry("speedup", "jitted f", {}, {"required": 1.5, "rule": {}})
    assert reference_failure(entry) is None


def test_unknown_check_kind() -> None:
    """Is a record of a kind decide does not know a ValueError (and a failed cell)?"""
    record = Entry("bogus", "x", encode(1.0))
    with pytest.raises(ValueError):
        decide(record, Entry("bogus", "x", encode(1.0)))
    assert not judge_cell([record], [Entry("bogus", "x", encode(1.0))]).passed


def test_a_failing_verdict_names_the_case() -> None:
    """When a record names its test case (hints.case), does the verdict's message end with it,
    whether the check failed or never ran?"""
    record = Entry("array", "f(x)", encode(np.ones(2, np.float32)), {"case": "an empty batch"})
    wrong = Entry("array", "f(x)", encode(np.zeros(2, np.float32)))
    failed = judge_cell([record], [wrong])
    assert not failed.passed and failed.message.endswith("Case: an empty batch.")
    missing = judge_cell([record], [])
    assert missing.message == "the check of f(x) did not run. Case: an empty batch."


# ------------------------------------------- hidden checks quote no expected value (issue 38)

def _hidden(check: str, value: Any, **options: Any) -> Entry:
    """A hidden record of ``value`` with check_array's tolerances and a case."""
    got = encode_tree(value) if check == "tree" else encode(value)
    return Entry(check, "f(x)", got, {**DEFAULTS, "case": "a polynomial", **options},
                 hidden=True)


@pytest.mark.parametrize("got, want, kind", [
    (np.float32(16.0), np.float32(19.3125), "between 10% and 50%"),
    (jnp.array([1.0, 7.0, 3.25]), jnp.array([1.0, 2.0, 3.25]), "wrong values"),
    (jnp.array([8.0, 16.0, -24.0]), jnp.array([1.0, 2.0, -3.0]), "wrong values"),
    (jnp.array([1.0, jnp.nan]), jnp.array([1.0, 2.5]), "NaN where a number was expected"),
    (jnp.array([1.0, jnp.inf]), jnp.array([1.0, 2.5]), "infinity where a finite number"),
    (jnp.zeros(2), jnp.array([4.75, 1.0, 2.0]), "wrong shape: got shape (2,)"),
    (np.array([True, False]), np.array([True, True]), "some entries differ"),
    (jnp.array([1, 2], jnp.int32), jnp.array([1.5, 2.0], jnp.float32), "dtype is int32"),
], ids=["scalar", "values", "factor", "nan", "inf", "shape", "bool", "int-for-float"])
def test_a_hidden_failure_names_its_case_and_kind_never_the_expected_value(
        got: Any, want: Any, kind: str) -> None:
    """Does a hidden check's failure say the kind of difference and the case, without the
    expected entries, expected shape or uniform factor its visible twin quotes?"""
    record = _hidden("array", want)
    hidden = judge_cell([record], [_array("f(x)", got)]).message
    visible = _message(lambda: check_array(got, want, name="f(x)"))
    assert kind.split(":")[0] in hidden and hidden.endswith("Case: a polynomial."), hidden
    secret = {f"{float(v):.6g}" for v in np.ravel(np.asarray(want, np.float64))} - {"1", "2"}
    assert not [s for s in secret if s in hidden], hidden
    assert "expected shape" not in hidden and "times the expected" not in hidden
    if kind in ("between 10% and 50%", "NaN where a number was expected"):
        assert [s for s in secret if s in visible], visible  # the twin's message quotes it


def test_a_hidden_errors_size_is_told_in_coarse_bands() -> None:
    """Is a hidden check's error given relative to the values' size in four wide bands
    (under 1%, 1 to 10%, 10 to 50%, more than half), the same for an expected zero?"""
    want = np.array([10.0, 20.0, 30.0])
    for scale, band in [(1.001, "under 1%"), (1.05, "between 1% and 10%"),
                        (1.3, "between 10% and 50%"), (3.0, "more than half")]:
        message = judge_cell([_hidden("array", want)], [_array("f(x)", want * scale)]).message
        assert band in message, (scale, message)
    zero = judge_cell([_hidden("array", np.zeros(3))], [_array("f(x)", np.ones(3))]).message
    assert "more than half" in zero


def test_a_hidden_value_check_shows_the_learners_value_only() -> None:
    """Does a hidden check_value's own message show ``{expected}`` as hidden and the learner's
    value as it is, while the visible twin quotes the expected value?"""
    options = {"message": "the walk should have shape {expected}, got {got}."}
    hidden = Entry("value", "shape", "(2000,)", options, hidden=True)
    message = judge_cell([hidden], [Entry("value", "shape", "(1999,)")]).message
    assert "(2000,)" not in message and "(1999,)" in message and "not shown" in message
    visible = Entry("value", "shape", "(2000,)", options)
    assert "(2000,)" in judge_cell([visible], [Entry("value", "shape", "(1999,)")]).message


def test_a_hidden_tree_shows_neither_expected_structure_nor_leaves() -> None:
    """Does a hidden tree check name the learner's structure only, and a leaf's failure its
    path and kind without the expected leaf, while a known mistake keeps its advice?"""
    want = {"w": np.array([0.125, 3.5]), "b": np.array(7.25)}
    record = _hidden("tree", want)
    record.mistakes = [["Did you forget the bias?", encode_tree({"w": want["w"],
                                                               "b": np.array(0.0)})]]
    structure = judge_cell([record], [Entry("tree", "f(x)", encode_tree([1.0]))]).message
    assert "'w'" not in structure and "which is not the structure expected" in structure
    leaf = judge_cell([record], [Entry("tree", "f(x)", encode_tree(
        {"w": want["w"], "b": np.array(0.0)}))]).message
    assert "f(x)['b']" in leaf and "7.25" not in leaf and "Did you forget the bias?" in leaf
