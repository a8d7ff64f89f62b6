"""HideTestSource: keep hidden tests out of the feedback a student sees.

Feedback is rendered from the autograded notebook, whose test cells hold the hidden tests and
whose tracebacks quote their lines. This removes the hidden region (and the per-run proof
line and output, see :mod:`autograder.grader.judging.proof`) from each test cell and shortens
error outputs of test cells to their exception line and notes.
"""

from __future__ import annotations

import re
from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from autograder.grader.judging.proof import strip_proofs

_HIDDEN = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?^[ \t]*### END HIDDEN TESTS[^\n]*\n?",
                     re.S | re.M)


class HideTestSource(Preprocessor):
    """Strip hidden test code and traceback frames from graded test cells."""

    # nbconvert skips preprocessors that are not enabled; nbgrader's own default to on.
    enabled = Bool(True).tag(config=True)

    def preprocess_cell(self, cell: Any, resources: dict, index: int) -> tuple[Any, dict]:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            strip_proofs(cell)
            if "BEGIN HIDDEN TESTS" in cell.source:
                cell.source = _HIDDEN.sub("# (hidden tests ran here)\n", cell.source)
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"]
        return cell, resources
