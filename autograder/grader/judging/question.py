"""A question decided: its score, status and message, from what its test cell left.

After the learner's notebook ran, each question's test cell holds outputs: the evidence its
checks published (:mod:`autograder.core.evidence`), the proof that it ran to its end
(:mod:`~autograder.grader.judging.proof`) and any error. :func:`decide_question` turns those,
the trusted records of the reference answers and what the grader knew before anything ran
(an answer missing, an answer screened) into the question's outcome. It is the one place a
question's points are given: the points need both the cell's own proof and every recorded
check passing on the evidence (:func:`~autograder.grader.judging.verdict.judge_cell`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autograder.core.evidence import MIME as EVIDENCE
from autograder.core.evidence import Entry
from autograder.core.notebook import Question
from autograder.grader.judging.proof import proved
from autograder.grader.judging.verdict import judge_cell, timings


@dataclass
class Outcome:
    """What one question earned, as the result and the feedback page say it."""

    score: float
    status: str  # passed | failed | error | timeout | missing
    message: str = ""
    raised: bool = False  # the learner's answer raised (the page: "your answer raised")
    timings: dict[str, float] = field(default_factory=dict)  # a timing test's measurement


def evidence_in(cell: Any) -> list[Entry]:
    """The check results a test cell published (malformed ones are left out)."""
    found = []
    for out in cell.get("outputs", []):
        data = out.get("data", {}) if isinstance(out.get("data"), dict) else {}
        if out.get("output_type") in ("display_data", "execute_result") and EVIDENCE in data:
            try:
                found.append(Entry.from_json(data[EVIDENCE]))
            except ValueError:
                continue
    return found


def _error_of(cell: Any) -> tuple[str, str]:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            return out.get("ename", "Error"), out.get("evalue", "")
    return "", ""


def decide_question(question: Question, cell: Any, records: list[Entry], token: str, *,
                    missing: bool = False, screened: str | None = None,
                    dropped: int = 0) -> Outcome:
    """Decide ``question`` from its autograded test ``cell`` (``{}`` when there is none).

    Args:
        question: the question (its points, answer and test cell ids).
        cell: the test cell as the learner's run left it: outputs and metadata.
        records: the trusted records of the cell's checks (the reference answers' run).
        token: this run's proof token of the cell.
        missing: no answer cell for the question was found in the submission.
        screened: the screen's message when the answer was not run (else None).
        dropped: how many check results the evidence budget cut from the cell.

    Returns:
        The question's :class:`Outcome`; its message is at most 1,000 characters.
    """
    evidence = evidence_in(cell)
    verdict = judge_cell(records, evidence)
    # The test cell ran to its end with no error (its proof), and every check it made passed,
    # decided here from its evidence. (nbgrader also zeroes a cell that wrote to stderr, so a
    # JAX warning failed honest work: it is not consulted.)
    ok = proved(cell, question.tests_id, token) and verdict.passed
    score = question.points if ok else 0.0
    ename, evalue = _error_of(cell)
    if missing:
        status, msg = "missing", "no answer cell for this question was found"
    elif ok and score >= question.points:  # (a screened extra cell did not matter)
        status, msg = "passed", ""
    elif screened is not None:
        status, msg = "failed", screened
    elif not verdict.passed and not verdict.missing:  # a check decided against
        status, msg = "failed", verdict.message
    elif "Timeout" in ename or "timed out" in evalue.lower():
        status, msg = "timeout", "the tests ran out of time"
    elif ename == "NotImplementedError":
        status, msg = "failed", "not attempted"
    elif ename == "AssertionError":
        status, msg = "failed", evalue
    elif ename:  # the answer raised (an exception of the learner's run)
        status, msg = "error", f"{ename}: {evalue}".strip(": ")
    else:
        status, msg = "error", ("the tests did not report that they ran to the "
                                "end (output or the kernel was tampered with?)")
    if dropped:  # evidence cut by its budget: said, never silent
        msg = (f"{msg} " if msg else "") + (
            f"({dropped} check result(s) of this test cell were dropped: it published "
            "more than the evidence budget keeps, so checks without their result "
            "fail.)")
    return Outcome(score, status, msg[:1000], raised=status == "error" and bool(ename),
                   timings=timings(records, evidence))
