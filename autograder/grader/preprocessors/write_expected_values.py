"""WriteExpectedValues: give each released test cell the expected values of its visible checks.

A test cell's checks name only the learner's call (``check_array(f(x), name="f(x)")``); in
grading the grader decides them from the reference answers' values
(:mod:`autograder.kernel.reporter`).
A released exercise must decide its visible checks by itself, in Colab, with no grader: this
makes each test cell load those values, recorded from the reference answers at release time.
It is data, not reference code: nothing a learner could copy as an answer, and the hidden
checks' values are never written.

With ``exercise`` set (the course's own release), the values stay out of the learner's sight:
the cell's first lines only name them (exercise, test cell id, digest) and the release writes
them into the package's values file (:mod:`autograder.core.released`). Without it, they are
written into the cell, packed (:func:`~autograder.core.evidence.expected_lines`).
"""

from __future__ import annotations

from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Dict, Unicode

from autograder.core.evidence import expected_lines
from autograder.core.released import reference_lines


class WriteExpectedValues(Preprocessor):
    """Prefix each test cell with the lines that load its visible checks' values (``records``)."""

    # nbconvert skips preprocessors that are not enabled; nbgrader's own default to on.
    enabled = Bool(True).tag(config=True)
    records = Dict(help="test cell id -> its visible checks' records").tag(config=True)
    exercise = Unicode("", help="the exercise whose values file holds the values; empty: "
                                "write them into the cell").tag(config=True)

    def preprocess_cell(self, cell: Any, resources: dict, index: int) -> tuple[Any, dict]:
        meta = cell.metadata.get("nbgrader", {})
        test_id = meta.get("grade_id")
        entries = self.records.get(test_id)
        if cell.cell_type == "code" and meta.get("grade") and entries:
            lines = (reference_lines(self.exercise, test_id, entries) if self.exercise
                     else expected_lines(entries))
            cell.source = lines + cell.source
        return cell, resources
