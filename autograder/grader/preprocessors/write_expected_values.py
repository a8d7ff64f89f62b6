"""WriteExpectedValues: give each released test cell the expected values of its visible checks.

A test cell's checks name only the learner's call (``check_array(f(x), name="f(x)")``); in
grading the grader decides them from the reference answers' values
(:mod:`autograder.kernel.reporter`).
A released exercise must decide its visible checks by itself, in Colab, with no grader: this
writes those values, recorded from the reference answers at release time, as data at the top
of the test cell. It is data, not reference code: nothing a learner could copy as an answer,
and the hidden checks' values are never written.
"""

from __future__ import annotations

from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Dict

from autograder.core.evidence import expected_lines


class WriteExpectedValues(Preprocessor):
    """Prefix each test cell with its visible checks' expected values (``records``)."""

    # nbconvert skips preprocessors that are not enabled; nbgrader's own default to on.
    enabled = Bool(True).tag(config=True)
    records = Dict(help="test cell id -> its visible checks' records").tag(config=True)

    def preprocess_cell(self, cell: Any, resources: dict, index: int) -> tuple[Any, dict]:
        meta = cell.metadata.get("nbgrader", {})
        entries = self.records.get(meta.get("grade_id"))
        if cell.cell_type == "code" and meta.get("grade") and entries:
            cell.source = expected_lines(entries) + cell.source
        return cell, resources
