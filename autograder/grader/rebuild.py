"""Rebuild the notebook to grade from the course's source and a student's answers.

Colab rewrites notebooks (metadata, cell ids, format version) and may drop nbgrader's cell
metadata; students delete, duplicate, reorder and edit cells. So the grader never trusts a
submission's structure or its test cells: it takes the released notebook (from the source),
and copies in only the student's answers, found by nbgrader ``grade_id``, else by the
``# answer-id:`` comment that the release step writes, else by position. Code cells the
student added follow the answer they were written after.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import nbformat
from nbformat import NotebookNode

from autograder.core.notebook import is_answer, nbgrader_meta
from autograder.grader.preprocessors import read_marker

EXTRA_KEY = "learn_jax_extra_after"  # metadata of a student's own cell: the answer it follows


@dataclass
class Rebuilt:
    """The notebook to grade, and what was (not) found in the submission."""

    notebook: NotebookNode
    found: dict[str, str] = field(default_factory=dict)  # answer id -> how it was found
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _looks_like_test(cell: NotebookNode, test_ids: set[str], template_sources: set[str]) -> bool:
    meta = nbgrader_meta(cell)
    if meta.get("grade") or meta.get("grade_id") in test_ids:
        return True
    text = cell.source.strip()
    return text in template_sources or "with feedback(" in text


def rebuild(released: NotebookNode, submission: NotebookNode) -> Rebuilt:
    """Combine the released notebook's cells with the submission's answers.

    Args:
        released: the student version generated from the source (stubs, markers, tests).
        submission: the student's notebook, already read as nbformat v4.

    Returns:
        A :class:`Rebuilt` whose notebook has the released structure and metadata.
    """
    template = nbformat.from_dict(released)
    answer_ids = [nbgrader_meta(c)["grade_id"] for c in template.cells if is_answer(c)]
    test_ids = {nbgrader_meta(c)["grade_id"] for c in template.cells
                if nbgrader_meta(c).get("grade")}
    template_code = [c for c in template.cells if c.cell_type == "code"]
    template_sources = {c.source.strip() for c in template_code if not is_answer(c)}
    sub_code = [c for c in submission.cells if c.get("cell_type") == "code"]
    positional = len(sub_code) == len(template_code)

    answers: dict[str, str] = {}
    extras: dict[str | None, list[str]] = {}
    result = Rebuilt(template)
    current: str | None = None
    for index, cell in enumerate(sub_code):
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        cell["source"] = source
        meta = nbgrader_meta(cell)
        gid = meta.get("grade_id") if meta.get("solution") else None
        how = "nbgrader id"
        if gid not in answer_ids:
            gid, how = read_marker(source), "answer-id comment"
        if gid not in answer_ids and positional and is_answer(template_code[index]):
            gid, how = nbgrader_meta(template_code[index])["grade_id"], "position"
        if gid in answer_ids:
            if gid in answers:
                result.notes.append(f"{gid}: several cells claim this answer; the last one is "
                                    "graded.")
            answers[gid] = source
            result.found[gid] = how
            current = gid
        elif not _looks_like_test(cell, test_ids, template_sources) and source.strip():
            extras.setdefault(current, []).append(source)

    cells = []
    for cell in template.cells:
        if is_answer(cell):
            gid = nbgrader_meta(cell)["grade_id"]
            if gid in answers:
                cell.source = answers[gid]
            else:
                result.missing.append(gid)
        cells.append(cell)
        gid = nbgrader_meta(cell).get("grade_id") if is_answer(cell) else None
        if gid is not None:
            for extra in extras.get(gid, []):
                cells.append(nbformat.v4.new_code_cell(
                    extra, metadata={EXTRA_KEY: gid}))
    if extras.get(None):
        result.notes.append("code cells before the first answer were not graded")
    template.cells = cells
    return result
