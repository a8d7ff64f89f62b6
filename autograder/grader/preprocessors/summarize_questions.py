"""SummarizeQuestions: what the feedback page puts first, the table of what to fix.

Grading writes its verdict on every question into the graded notebook's metadata
(:data:`VERDICTS_KEY`: test cell id -> status, score, points, message, and whether the answer
raised). This preprocessor runs in ``generate_feedback`` after nbgrader's ``GetGrades`` and
before :class:`HideTestSource` (which shortens the tracebacks it reads); it gathers one
:class:`QuestionSummary` per graded test cell (the question's heading, points, the grader's
status and message, the test case and the hints its tests printed, and the line of the
learner's code where the answer raised) into ``resources["questions"]``, and marks the cells
where each question's section starts (:data:`ANCHOR_KEY`) and its answer (:data:`ANSWER_KEY`),
for the feedback template (``autograder/grader/templates/learn_jax_feedback``).

One message, once: the table shows a failure's message, case and hints, so the lines of a
failed question's test cell output that say the same (the ``Question 2: not yet. ...`` line,
``Case:`` and ``Hint:`` lines, the error it raised) are taken out of that output; what else the
tests or the answer printed stays.

Where an answer raised is read from the test cell's traceback only as a cell's execution count
and a line number (``Cell In[7], line 4``); the line shown is taken from that cell's source in
the graded notebook, and only from a cell that is not a test cell (hidden tests stay hidden,
whatever a traceback says).

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
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_FRAME = re.compile(r"Cell In\[(\d+)\], line (\d+)")  # IPython's name of a cell's frame
# ``feedback``'s first line on a failure: "Question 2: not yet. KeyError: 'i'"
_NOT_YET = re.compile(r"^.{1,120}?: (?:not yet\.\s*(?P<error>.*)|not attempted yet\.)$")
_CLASS = re.compile(r"^[A-Za-z_][\w.]*: ")  # "KeyError: " before an error's message
TITLE_CHARS = 120
CODE_CHARS = 200  # characters of the offending line shown in the table


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
    raised: bool = False  # the answer raised an exception (status "error")
    case: str = ""  # the test case that failed, as the tests printed it (when not in message)
    where: str = ""  # where the answer raised: "line 4 of your answer" (empty when unknown)
    code: str = ""  # that line of the learner's code

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


def printed_lines(cell: Any, prefix: str) -> list[str]:
    """The lines starting with ``prefix`` that a test cell's tests printed on stdout, without
    the prefix."""
    found = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            for line in str(out.get("text", "")).splitlines():
                if line.startswith(prefix):
                    found.append(line.removeprefix(prefix).strip())
    return found


def printed_hints(cell: Any) -> list[str]:
    """The ``Hint: ...`` lines that a test cell's tests printed on stdout."""
    return printed_lines(cell, "Hint:")


def raised_in(cell: Any) -> tuple[int, int] | None:
    """The innermost ``(execution count, line)`` that a test cell's error names as a cell's
    frame (``Cell In[7], line 4``), the test cell's own frames included; None when none."""
    found = None
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            for part in out.get("traceback", []) or []:
                for match in _FRAME.finditer(_ANSI.sub("", str(part))):
                    found = (int(match.group(1)), int(match.group(2)))
    return found


def _plain(text: str) -> str:
    """``text`` with its runs of white space made one space (lines joined)."""
    return " ".join(text.split())


def said_in(line: str, shown: str) -> bool:
    """Does the table (its text ``shown``, spaces made single) already say what ``line`` says?
    ``line`` may carry an error's class name or be cut with an ellipsis."""
    line = _plain(line).removesuffix("…").strip()
    if len(line) < 3:
        return False
    return line in shown or _CLASS.sub("", line) in shown


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
        titles: dict[int, str] = {}  # answer cell index -> its question's title
        for index, cell in enumerate(nb.cells):
            title = heading_of(cell)
            if title and answer is None:
                heading = (index, title)
            if is_answer(cell):
                answer = index
            elif is_test(cell):
                summary = self._summarize(nb, index, answer, heading, verdicts,
                                          {s.anchor for s in summaries})
                if answer is not None:
                    titles[answer] = summary.title
                summaries.append(summary)
                heading, answer = None, None
        tests = [index for index, cell in enumerate(nb.cells) if is_test(cell)]
        for summary, index in zip(summaries, tests, strict=True):
            if summary.raised:
                self._locate(nb, index, summary, titles)
            if not summary.passed:
                _drop_repeats(nb.cells[index], summary)
        resources[RESOURCES_KEY] = summaries
        return nb, resources

    @staticmethod
    def _locate(nb: Any, index: int, summary: QuestionSummary,
                titles: dict[int, str]) -> None:
        """Fill in where the answer of the test cell at ``index`` raised: the line of a cell
        that is not a test cell, found by the execution count its error names."""
        found = raised_in(nb.cells[index])
        if found is None:
            return
        count, line = found
        cells = [i for i, c in enumerate(nb.cells) if c.get("cell_type") == "code"
                 and c.get("execution_count") == count]
        if len(cells) != 1 or is_test(nb.cells[cells[0]]):
            return
        lines = str(nb.cells[cells[0]].get("source", "")).splitlines()
        if not 1 <= line <= len(lines) or not lines[line - 1].strip():
            return
        summary.code = lines[line - 1].strip()[:CODE_CHARS]
        if cells[0] in titles:
            own = titles[cells[0]] == summary.title
            summary.where = (f"line {line} of your answer" if own
                             else f"line {line} of your answer to {titles[cells[0]]}")
        else:
            summary.where = f"line {line} of a code cell of the notebook"

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
        case = ""
        if status != "passed":
            message, hints = split_hints(message)
            for hint in printed_hints(cell):
                if hint not in hints and hint not in message:
                    hints.append(hint)
            cases = [c for c in printed_lines(cell, "Case:") if c and c not in message]
            case = cases[0] if cases else ""
        limit = self.max_chars
        raised = status == "error" and isinstance(verdict, dict) and verdict.get("raised") is True
        return QuestionSummary(
            id=qid, anchor=anchor, title=heading[1] if heading else qid, score=score,
            points=points, status=status, message=message[:limit],
            hints=[h[:limit] for h in hints[: self.max_hints]], raised=raised,
            case=case[:limit])


def _drop_repeats(cell: Any, summary: QuestionSummary) -> None:
    """Take out of a failed question's test cell output what the table already says: the
    ``not yet`` line, ``Case:`` and ``Hint:`` lines, and an error whose message it shows."""
    shown = _plain(" ".join([summary.message, summary.case, *summary.hints]))
    kept = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "error":
            first = next((ln for ln in str(out.get("evalue", "")).splitlines() if ln.strip()),
                         "")
            if first and said_in(f"{out.get('ename', '')}: {first}"[:300], shown):
                continue
        elif kind == "stream" and out.get("name") == "stdout":
            lines = [line for line in str(out.get("text", "")).split("\n")
                     if not _repeated(line, summary, shown)]
            if not "".join(lines).strip():
                continue
            out["text"] = "\n".join(lines)
        kept.append(out)
    cell["outputs"] = kept


def _repeated(line: str, summary: QuestionSummary, shown: str) -> bool:
    """Is ``line`` (printed by a failed question's tests) one the table already shows?"""
    text = line.strip()
    for prefix in ("Hint:", "Case:"):
        if text.startswith(prefix):
            return said_in(text.removeprefix(prefix), shown)
    match = _NOT_YET.match(text)
    if match:
        error = match.group("error")
        return (summary.message == "not attempted" if error is None
                else bool(error) and said_in(error, shown))
    return False
