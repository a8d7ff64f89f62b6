"""Tests of autograder.core.released: the values files of released exercises and the short line
a released test cell names its values with."""

from __future__ import annotations

import json

import numpy as np
import pytest

from autograder.core.evidence import Entry, encode
from autograder.core.released import (
    DIGEST_LENGTH,
    Reference,
    digest,
    merged,
    read_values,
    reference_lines,
    render_values,
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
    lines = reference_lines("05_jit", "q1_clip_by_norm_tests", _entries())
    assert lines.count("\n") == 2 and max(map(len, lines.splitlines())) <= 100
    ref = Reference("05_jit", "q1_clip_by_norm_tests", digest(_entries()))
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
        reference_lines("05_jit", name, _entries())


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
