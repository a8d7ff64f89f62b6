"""Tests of autograder.core.released: the values files of released exercises and the short line
a released test cell names its values with."""

from __future__ import annotations

import json

import numpy as np
import pytest

from autograder.core.evidence import Entry, decode, encode
from autograder.core.released import (
    DIGEST_LENGTH,
    Reference,
    digest,
    merged,
    read_values,
    reference_lines,
    render_values,
    value_change,
    written_reference,
)

CHECKS = 'check_array(double(jnp.arange(3.0)), name="double(arange(3.0))")\n'


def _entries(scale: float = 2.0) -> list[Entry]:
    return [Entry("array", "double(arange(3.0))",
                  encode(np.arange(3.0, dtype=np.float32) * scale), {"rtol": 1e-5}),
            Entry("value", "double is jitted", "ok", {"message": "{got}"})]


def test_digest_is_short_stable_and_tells_values_apart() -> None:
    """Is the digest a short hex string, the same for equal values and different when any
    value or option differs?"""
    one = digest(_entries())
    assert len(one) == DIGEST_LENGTH and int(one, 16) >= 0
    assert digest(_entries()) == one
    assert digest(_entries(3.0)) != one
    changed = _entries()
    changed[1].options["message"] = "other"
    assert digest(changed) != one


def test_reference_lines_round_trip_and_stay_short() -> None:
    """Do the two lines name the exercise, the cell and the digest in short lines that
    written_reference reads back, at the top of a cell only?"""
    lines = reference_lines("06_jit", "q1_clip_by_norm_tests", _entries())
    assert lines.count("\n") == 2 and max(map(len, lines.splitlines())) <= 100
    ref = Reference("06_jit", "q1_clip_by_norm_tests", digest(_entries()))
    assert written_reference(lines + CHECKS) == ref
    assert written_reference(lines) == ref
    assert written_reference(CHECKS) is None
    assert written_reference("# a comment\n" + lines) is None


@pytest.mark.parametrize("name", ["../etc/passwd", "a b", "", 'q"1'])
def test_reference_lines_refuse_names_that_are_not_plain(name: str) -> None:
    """Is a name that could leave the values folder, or break the line, refused?"""
    with pytest.raises(ValueError):
        reference_lines(name, "q1_tests", _entries())
    with pytest.raises(ValueError):
        reference_lines("06_jit", name, _entries())


def test_values_file_round_trip_keeps_earlier_values() -> None:
    """Does a values file read back what was rendered, keep earlier digests when new values are
    merged, and render the same text twice?"""
    first = merged({}, {"q1_tests": _entries(), "q2_tests": [_entries()[1]]})
    text = render_values("00_tiny", first)
    assert json.loads(text)["exercise"] == "00_tiny"
    assert read_values(text, "00_tiny") == first
    second = merged(read_values(text, "00_tiny"), {"q1_tests": _entries(3.0)})
    assert set(second["q1_tests"]) == {digest(_entries()), digest(_entries(3.0))}
    assert render_values("00_tiny", second) == render_values("00_tiny", second)
    assert read_values(render_values("00_tiny", {}), "00_tiny") == {}


def test_values_file_refuses_edited_values_and_other_exercises() -> None:
    """Is a values file whose values no longer have their digest (edited by hand), or of
    another exercise, or not a values file, refused?"""
    text = render_values("00_tiny", merged({}, {"q1_tests": _entries()}))
    with pytest.raises(ValueError, match="digest"):
        read_values(text.replace('"ok"', '"not ok"'), "00_tiny")
    with pytest.raises(ValueError, match="not a values file"):
        read_values(text, "01_arrays")
    with pytest.raises(ValueError):
        read_values("[]", "00_tiny")


def _nudged(entries: list[Entry], rel: float, index: int = 0) -> list[Entry]:
    """``entries`` with the floats of entry ``index`` (its value and known mistakes' values)
    scaled by ``1 + rel``, as another machine's float32 might compute them."""
    def scale(encoded: dict) -> dict:
        value = decode(encoded)
        return encode(value * value.dtype.type(1 + rel)) if value.dtype.kind == "f" else encoded

    out = []
    for n, entry in enumerate(entries):
        if entry.check in ("array", "scalar") and n == index:
            entry = Entry(entry.check, entry.name, scale(entry.got), dict(entry.options),
                          [[advice, scale(value)] for advice, value in entry.mistakes])
        out.append(entry)
    return out


def _with_mistake() -> list[Entry]:
    entries = _entries()
    entries[0].mistakes = [["It doubled nothing.", encode(np.arange(3.0, dtype=np.float32))]]
    return entries


def test_value_change_accepts_float_noise_within_each_tolerance() -> None:
    """Do values a few units in the last place apart (another machine's float32) agree, though
    their digest differs (the churn a release must not make)?"""
    was = _with_mistake()
    now = _nudged(was, 3e-7)
    assert digest(now) != digest(was)
    assert value_change(was, now) is None
    assert value_change(was, was) is None


def test_value_change_names_the_check_and_its_largest_difference() -> None:
    """Is a value moved beyond its tolerance reported with the check's name, the largest
    difference, where it is and the tolerances?"""
    was = _entries()
    now = _nudged(was, 1e-3)
    why = value_change(was, now)
    assert why is not None and "'double(arange(3.0))'" in why
    assert "largest difference 0.004 at index (2,)" in why and "rtol 1e-05" in why


def test_value_change_uses_the_checks_own_tolerance() -> None:
    """Does a check with a looser rtol accept a difference that the default would not?"""
    was = _entries()
    was[0].options = {"rtol": 1e-2}
    assert value_change(was, _nudged(was, 1e-3)) is None
    assert value_change(was, _nudged(was, 1e-1)) is not None


@pytest.mark.parametrize("change", ["dtype", "shape", "options", "order", "mistake value",
                                    "mistake advice", "plain value", "nan"])
def test_value_change_refuses_what_is_more_than_noise(change: str) -> None:
    """Is anything other than float noise a change: another dtype or shape, options, the
    checks' order, a known mistake's value or advice, a plain value, NaN where a number was?"""
    was = _with_mistake()
    now = _with_mistake()
    if change == "dtype":
        now[0].got = encode(np.arange(3.0, dtype=np.float64) * 2)
    elif change == "shape":
        now[0].got = encode(np.arange(4.0, dtype=np.float32) * 2)
    elif change == "options":
        now[0].options = {"rtol": 1e-4}
    elif change == "order":
        now.reverse()
    elif change == "mistake value":
        now[0].mistakes = [["It doubled nothing.", encode(np.ones(3, dtype=np.float32))]]
    elif change == "mistake advice":
        now[0].mistakes = [["Other advice.", now[0].mistakes[0][1]]]
    elif change == "plain value":
        now[1].got = "not ok"
    elif change == "nan":
        now[0].got = encode(np.array([0.0, np.nan, 4.0], dtype=np.float32))
    assert value_change(was, now) is not None


def test_value_change_compares_pytrees_leaf_by_leaf() -> None:
    """Does a pytree agree within tolerance leaf by leaf, and name the leaf that moved?"""
    def tree(scale: float) -> list[Entry]:
        leaves = {"b": np.float32(1.0) * np.ones(2, np.float32),
                  "w": np.arange(3.0, dtype=np.float32) * np.float32(scale)}
        return [Entry("tree", "params", {"treedef": "PyTreeDef({'b': *, 'w': *})",
                                         "leaves": [[f"['{k}']", encode(v)]
                                                    for k, v in leaves.items()]},
                      {"rtol": 1e-5})]
    assert value_change(tree(1.0), tree(1.0 + 2e-7)) is None
    why = value_change(tree(1.0), tree(1.1))
    assert why is not None and "'params' at ['w']" in why and "largest difference" in why
