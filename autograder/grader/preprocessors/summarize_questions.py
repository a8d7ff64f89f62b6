"""SummarizeQuestions: what the feedback page puts first, the table of what to fix.

Grading writes its verdict on every question into the graded notebook's metadata
(:data:`VERDICTS_KEY`: test cell id -> status, score, points and message). This preprocessor
runs in ``generate_feedback`` after nbgrader's ``GetGrades`` and :class:`HideTestSource`; it
gathers one :class:`QuestionSummary` per graded test cell (the question's heading, points, the
grader's status and message, and the hints its tests printed) into
``resources["questions"]``, and marks the cells where each question's section starts
(:data:`ANCHOR_KEY`) and its answer (:data:`ANSWER_KEY`), for the feedback template
(``autograder/grader/templates/learn_jax_feedback``).

Everything it gathers is text: the template escapes it. Marks of its own already in a
submission's cells are removed first, so a section's anchor is always one this wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Int

from autograder.core.notebook import is_answer, is_test, nbgrader_meta

VERDICTS_KEY = "learn_jax_verdicts"  # notebook metadata: test cell id -> the grader's verdict
ANCHOR_KEY = "learn_jax_anchor"  # cell metadata: the anchor of the section starting here
ANSWER_KEY = "learn_jax_answer"  # cell metadata: the anchor of the question answered here
RESOURCES_KEY = "questions"  # resources: the list of QuestionSummary, in notebook order

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.M)
_HINT = re.compile(r"(?:^|\s)Hint:\s*", re.M)
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_-]+")
TITLE_CHARS = 120


@dataclass
class QuestionSummary:
    """One row of the feedback page's table: a question and what to fix in it."""

    id: str  # the answer cell's grade id (the test cell's when there is no answer cell)
    anchor: str  # the id of the element where the question's section starts
    title: str  # the question's heading, as text
    score: float
    points: float
    status: str  # passed | failed | error | timeout | missing
    message: str = ""
    hints: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when the question scored all its points."""
        return self.status == "passed"


def anchor_of(grade_id: str) -> str:
    """The HTML id of a question's section: ``q-`` and the grade id, in a safe alphabet."""
    return "q-" + (_UNSAFE_ID.sub("-", grade_id) or "question")


def heading_of(cell: Any) -> str | None:
    """The first Markdown heading of a Markdown cell, as plain text (None when it has none)."""
    if cell.get("cell_type") != "markdown":
        return None
    match = _HEADING.search(cell.get("source", ""))
    if not match:
        return None
    text = re.sub(r"[*`]", "", match.group(1)).strip()  # emphasis and code marks (not _:
    # names like fori_loop keep theirs)
    return text[:TITLE_CHARS] or None


def split_hints(message: str) -> tuple[str, list[str]]:
    """A message without its ``Hint: ...`` parts, and those parts (in order)."""
    parts = _HINT.split(message)
    return parts[0].strip(), [p.strip() for p in parts[1:] if p.strip()]


def printed_hints(cell: Any) -> list[str]:
    """The ``Hint: ...`` lines that a test cell's tests printed on stdout."""
    found = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            for line in str(out.get("text", "")).splitlines():
                if line.startswith("Hint:"):
                    found.append(line.removeprefix("Hint:").strip())
    return found


def _number(value: Any, default: float = 0.0) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


class SummarizeQuestions(Preprocessor):
    """Collect each graded question's verdict into ``resources`` for the feedback table."""

    # nbconvert skips preprocessors that are not enabled; nbgrader's own default to on.
    enabled = Bool(True).tag(config=True)
    max_hints = Int(3, help="hints shown per question in the table").tag(config=True)
    max_chars = Int(1000, help="characters of a message or hint shown in the table").tag(
        config=True)

    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        """Summarize the questions of ``nb`` into ``resources["questions"]``."""
        verdicts = nb.metadata.pop(VERDICTS_KEY, None)
        verdicts = verdicts if isinstance(verdicts, dict) else {}
        for cell in nb.cells:  # only this preprocessor's marks may reach the template
            cell.get("metadata", {}).pop(ANCHOR_KEY, None)
            cell.get("metadata", {}).pop(ANSWER_KEY, None)
        summaries: list[QuestionSummary] = []
        heading: tuple[int, str] | None = None  # the last heading since the last question
        answer: int | None = None
        for index, cell in enumerate(nb.cells):
            title = heading_of(cell)
            if title and answer is None:
                heading = (index, title)
            if is_answer(cell):
                answer = index
            elif is_test(cell):
                summaries.append(self._summarize(nb, index, answer, heading,
                                                 verdicts, {s.anchor for s in summaries}))
                heading, answer = None, None
        resources[RESOURCES_KEY] = summaries
        return nb, resources

    def _summarize(self, nb: Any, index: int, answer: int | None,
                   heading: tuple[int, str] | None, verdicts: dict,
                   taken: set[str]) -> QuestionSummary:
        """The summary of the test cell at ``index``; marks its section's cells."""
        cell = nb.cells[index]
        meta = nbgrader_meta(cell)
        tests_id = str(meta.get("grade_id", f"cell-{index}"))
        qid = str(nbgrader_meta(nb.cells[answer])["grade_id"]) if answer is not None else tests_id
        anchor = anchor_of(qid)
        while anchor in taken:
            anchor += "-"
        start = heading[0] if heading else (answer if answer is not None else index)
        nb.cells[start].setdefault("metadata", {})[ANCHOR_KEY] = anchor
        if answer is not None:
            nb.cells[answer].setdefault("metadata", {})[ANSWER_KEY] = anchor
        points = _number(meta.get("points"))
        score = _number(meta.get("score"))  # GetGrades' score from the gradebook
        verdict = verdicts.get(tests_id)
        if isinstance(verdict, dict):
            status = str(verdict.get("status", "error"))
            message = str(verdict.get("message", ""))
            score = _number(verdict.get("score"), score)
            points = _number(verdict.get("points"), points)
        else:  # feedback for a notebook this grader did not judge: nbgrader's score only
            status, message = ("passed" if points and score >= points else "failed"), ""
        hints: list[str] = []
        if status != "passed":
            message, hints = split_hints(message)
            for hint in printed_hints(cell):
                if hint not in hints and hint not in message:
                    hints.append(hint)
        limit = self.max_chars
        return QuestionSummary(
            id=qid, anchor=anchor, title=heading[1] if heading else qid, score=score,
            points=points, status=status, message=message[:limit],
            hints=[h[:limit] for h in hints[: self.max_hints]])
