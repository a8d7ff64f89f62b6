"""Reading an nbgrader notebook's structure: questions, answer cells and test cells."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nbformat import NotebookNode


@dataclass
class Question:
    """One graded question: its answer cell id, test cell id and points."""

    answer_id: str
    tests_id: str
    points: float


def nbgrader_meta(cell: Any) -> dict:
    """The cell's nbgrader metadata (empty when it has none)."""
    return dict(cell.get("metadata", {}).get("nbgrader", {}) or {})


def is_answer(cell: Any) -> bool:
    """True for an nbgrader solution cell of code."""
    meta = nbgrader_meta(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("solution")) and not meta.get("grade")


def is_test(cell: Any) -> bool:
    """True for an nbgrader graded test cell (code with points)."""
    meta = nbgrader_meta(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def questions(nb: NotebookNode) -> list[Question]:
    """The questions of a source notebook, in order.

    Each answer cell pairs with the first test cell after it; its id is the answer cell's
    ``grade_id``.
    """
    found: list[Question] = []
    pending: str | None = None
    for cell in nb.cells:
        if is_answer(cell):
            pending = nbgrader_meta(cell)["grade_id"]
        elif is_test(cell) and pending is not None:
            meta = nbgrader_meta(cell)
            found.append(Question(pending, meta["grade_id"], float(meta.get("points", 0))))
            pending = None
    return found


def code_of(cell: Any) -> str:
    """A code cell's source as plain Python (IPython magics turned into calls)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(cell.source)
