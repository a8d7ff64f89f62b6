"""SanitizeOutputs: nbconvert's ``SanitizeHTML`` for what a submission printed, and nothing else.

nbconvert's preprocessor cleans Markdown cells as well, as if they were HTML: bleach turns
``<float32 scalar>`` into ``&lt;float32 scalar&gt;`` and the Markdown renderer then escapes
that text a second time, so the page showed the entities. The feedback page's Markdown cells
are the course's question text, rendered by :mod:`autograder.grader.question_text` with raw
HTML off; this leaves them as written and cleans code cells' outputs (and raw cells) exactly
as ``SanitizeHTML`` does.
"""

from __future__ import annotations

from typing import Any

from nbconvert.preprocessors.sanitize import SanitizeHTML


class SanitizeOutputs(SanitizeHTML):
    """``SanitizeHTML`` that leaves Markdown cells to the page's own renderer."""

    def preprocess_cell(self, cell: Any, resources: dict, cell_index: int) -> tuple[Any, dict]:
        """Clean ``cell``'s outputs (or a raw cell's source); a Markdown cell is left as is."""
        if cell.cell_type == "markdown":
            return cell, resources
        return super().preprocess_cell(cell, resources, cell_index)
