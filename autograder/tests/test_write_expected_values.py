"""Tests of autograder.grader.preprocessors.write_expected_values: released test cells load the
visible checks' expected values as data, never the hidden ones': named in a short line (the
course's own release, values in the package) or packed inline (a course outside it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder.core.decide import decide
from autograder.core.evidence import Entry, encode, expected_lines, written_values
from autograder.core.notebook import is_test
from autograder.core.released import Reference, digest, written_reference
from autograder.grader.preprocessors import WriteExpectedValues
from autograder.grader.release import student_version, written_records
from autograder.kernel import reporter as judge

META = {"schema_version": 3, "locked": False, "task": False}
TESTS = ('check_array(double(jnp.arange(3.0)), name="double(arange(3.0))")\n'
         "### BEGIN HIDDEN TESTS\n"
         'check_array(double(jnp.ones((2, 2))), name="double(ones((2, 2)))")\n'
         "### END HIDDEN TESTS\n")


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Released values loaded by a test do not outlive it."""
    monkeypatch.setattr(judge, "_state", judge._State())
    yield


def _visible() -> Entry:
    return Entry("array", "double(arange(3.0))", encode(np.array([0.0, 2.0, 4.0], np.float32)),
                 {"rtol": 1e-5, "atol": 1e-6, "check_dtype": False})


def _hidden() -> Entry:
    return Entry("array", "double(ones((2, 2)))", encode(np.full((2, 2), 2.0, np.float32)),
                 {"rtol": 1e-5, "atol": 1e-6, "check_dtype": False}, hidden=True)


def _source() -> nbformat.NotebookNode:
    """A one-question nbgrader source: imports, answer, its test cell, an ungraded cell."""
    return nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import jax.numpy as jnp\n"
                                  "from autograder.kernel.checks import check_array"),
        nbformat.v4.new_code_cell(
            "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION",
            metadata={"nbgrader": {**META, "grade": False, "solution": True,
                                   "grade_id": "q1_double"}}),
        nbformat.v4.new_code_cell(TESTS, metadata={"nbgrader": {
            **META, "grade": True, "solution": False, "grade_id": "q1_double_tests",
            "points": 1}}),
        nbformat.v4.new_code_cell("print('an ordinary cell')"),
    ])


def test_expected_lines_round_trip() -> None:
    """Does written_values read back the entries expected_lines writes, at the top of a
    test cell followed by its checks?"""
    entries = [_visible(), Entry("value", "f is jitted", "ok", {"message": "{got}"})]
    lines = expected_lines(entries)
    assert lines.count("\n") == 2 and lines.startswith("from autograder.kernel.reporter import")
    assert written_values(lines + TESTS) == entries
    assert written_values(lines) == entries
    assert written_values(expected_lines([])) == []


def test_written_values_only_at_the_top() -> None:
    """Is a cell without the lines, or with them anywhere but first, loading nothing?"""
    lines = expected_lines([_visible()])
    assert written_values(TESTS) is None
    assert written_values("# a comment\n" + lines) is None
    assert written_values("") is None


def test_the_lines_run_and_load_the_values() -> None:
    """Executed as Python, do the two lines load the released values for the cell?"""
    exec(expected_lines([_visible()]), {})
    assert judge._state.expected == [_visible()]


def test_preprocessor_touches_only_graded_test_cells_with_records() -> None:
    """Does WriteExpectedValues prefix the graded test cell that has records, and leave
    alone an answer cell, a markdown cell and a test cell whose id has none?"""
    nb = _source()
    other = nbformat.v4.new_code_cell("check_array(1.0, name='one')", metadata={"nbgrader": {
        **META, "grade": True, "solution": False, "grade_id": "q2_tests", "points": 1}})
    note = nbformat.v4.new_markdown_cell("text", metadata={"nbgrader": {
        **META, "grade": True, "solution": False, "grade_id": "q1_double_tests",
        "points": 0}})
    nb.cells += [other, note]
    before = [c.source for c in nb.cells]
    records = {"q1_double_tests": [_visible()], "q1_double": [_visible()], "q2_tests": []}
    out, _ = WriteExpectedValues(records=records).preprocess(nb, {})
    after = [c.source for c in out.cells]
    assert after[2] == expected_lines([_visible()]) + TESTS
    assert [a for i, a in enumerate(after) if i != 2] == [
        b for i, b in enumerate(before) if i != 2]


def test_preprocessor_without_records_changes_nothing() -> None:
    """With no records (the grader's use), is every cell left as it was?"""
    nb = _source()
    before = [c.source for c in nb.cells]
    out, _ = WriteExpectedValues().preprocess(nb, {})
    assert [c.source for c in out.cells] == before


def test_student_version_writes_only_visible_values() -> None:
    """Does the released test cell load the visible check's value and not the hidden one's,
    with the hidden test itself gone?"""
    records = {"q1_double_tests": [_visible(), _hidden()]}
    released = student_version(_source(), records)
    (cell,) = [c for c in released.cells if is_test(c)]
    assert written_values(cell.source) == [_visible()]
    assert "ones((2, 2))" not in cell.source and "HIDDEN" not in cell.source
    assert written_records(nbformat.writes(released)) == {"q1_double_tests": [_visible()]}
    assert records["q1_double_tests"][1].hidden  # the caller's records are left as they were


def test_with_an_exercise_the_cell_only_names_its_values() -> None:
    """With an exercise named (the course's own release), does the test cell name its visible
    values (exercise, cell, digest of the visible ones only) in short lines, with nothing
    inline?"""
    records = {"q1_double_tests": [_visible(), _hidden()]}
    released = student_version(_source(), records, exercise="00_tiny")
    (cell,) = [c for c in released.cells if is_test(c)]
    assert written_reference(cell.source) == Reference("00_tiny", "q1_double_tests",
                                                       digest([_visible()]))
    assert written_values(cell.source) is None
    assert max(len(line) for line in cell.source.splitlines()) <= 100
    assert cell.source.endswith(TESTS.split("### BEGIN")[0])


def test_student_version_with_only_hidden_records_writes_nothing() -> None:
    """Is a test cell whose every check is hidden released without expected values?"""
    released = student_version(_source(), {"q1_double_tests": [_hidden()]})
    (cell,) = [c for c in released.cells if is_test(c)]
    assert written_values(cell.source) is None


def test_student_version_without_records_has_bare_test_cells() -> None:
    """Without records, are test cells released without expected values, and is the rest
    of the notebook the same as with them?"""
    bare = student_version(_source())
    written = student_version(_source(), {"q1_double_tests": [_visible()]})
    assert written_records(nbformat.writes(bare)) == {}
    assert [c.source for c in bare.cells if not is_test(c)] == [
        c.source for c in written.cells if not is_test(c)]


def test_checksum_covers_the_written_values() -> None:
    """Is the released test cell's checksum that of the cell with its values (computed
    after they are written), so changed values are detected?"""
    one = student_version(_source(), {"q1_double_tests": [_visible()]})
    other_value = Entry("array", "double(arange(3.0))", encode(np.zeros(3, np.float32)))
    two = student_version(_source(), {"q1_double_tests": [other_value]})
    checksums = [next(c for c in nb.cells if is_test(c)).metadata.nbgrader["checksum"]
                 for nb in (one, two)]
    assert checksums[0] != checksums[1]


def _run_released(tmp_path: Path, answer: str) -> None:
    """Run the released notebook's cells (with ``answer`` for the stub) in one namespace."""
    released = student_version(_source(), {"q1_double_tests": [_visible(), _hidden()]})
    ns: dict = {}
    for cell in released.cells:
        if cell.cell_type != "code":
            continue
        code = answer if "def double" in cell.source else cell.source
        exec(compile(code, str(tmp_path / "cell"), "exec"), ns)
        judge.reset()  # what the kernel does after each cell


def test_released_cell_decides_like_the_grader(tmp_path: Path) -> None:
    """Does the released test cell pass the right answer and fail a wrong one with the
    grader's own message (decide against the same record)?"""
    _run_released(tmp_path, "def double(x):\n    return 2 * x\n")
    with pytest.raises(AssertionError) as info:
        _run_released(tmp_path, "def double(x):\n    return 3 * x\n")
    got = Entry("array", "double(arange(3.0))", encode(np.array([0.0, 3.0, 6.0], np.float32)))
    with pytest.raises(AssertionError) as grader:
        decide(_visible(), got)
    assert str(info.value) == str(grader.value)
