"""The instructor's decisions on each learner's feedback page.

The page (``<student>/<assignment>/feedback.html``) is made while grading, before any
decision is laid on top; :func:`show_decisions` writes them into it afterwards, between two
markers the course's template leaves in the page's header (:data:`START`, :data:`END`), so a
later run replaces them (idempotent) and a score set by hand, a late penalty or an excused
mark reads the same on the page as in the gradebook and every export. Every text is escaped.
"""

from __future__ import annotations

import html
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from autograder.grader.classroom.classlist import Applied
from autograder.grader.classroom.term import Decision
from autograder.grader.reports.common import format_score
from autograder.grader.result import Result

START = "<!--learn-jax:decisions-->"
END = "<!--/learn-jax:decisions-->"
PAGE = "feedback.html"


def decision_lines(result: Result, decision: Decision | None,
                   applied: Iterable[Applied]) -> list[str]:
    """What the learner is told beyond the grader's verdicts, one sentence each."""
    lines = []
    for a in applied:
        if a.question:
            lines.append(f"Question {a.question}: {format_score(a.new)} points, set by your "
                         f"instructor ({a.reason}).")
        else:
            lines.append(f"Your score was set by your instructor to {format_score(a.new)} / "
                         f"{format_score(result.max_score)} ({a.reason}).")
    if decision is not None:
        if decision.excused:
            lines.append(f"This assignment is excused ({decision.note.removeprefix('excused: ')})"
                         ": it does not count toward your grade.")
        elif decision.state == "late" and decision.score is not None:
            lines.append(f"Late: {decision.note}. Score recorded: "
                         f"{format_score(decision.score)} / {format_score(decision.max_score)}.")
        elif decision.state == "late":
            lines.append(f"Late: {decision.note}.")
        elif decision.state == "missing" and decision.score is not None:
            lines.append(f"Not submitted: {decision.note}. Score recorded: "
                         f"{format_score(decision.score)} / {format_score(decision.max_score)}.")
    if any(not a.question for a in applied) or (decision is not None and decision.score is not None
                                                 and decision.state == "late"):
        lines.append("The table below shows the grader's own verdicts.")
    return lines


def _block(lines: list[str]) -> str:
    if not lines:
        return START + END
    items = "".join(f"<p class=\"msg\">{html.escape(line)}</p>" for line in lines)
    return f"{START}<section id=\"decisions\">{items}</section>{END}"


def decision_page(student: str, assignment: str, lines: list[str]) -> str:
    """A page of its own for a recorded result with no graded notebook behind it (excused,
    not submitted): the assignment, and why the gradebook says what it says."""
    title = html.escape(f"{assignment}: {student}")
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}"
            f"</title></head><body><header id=\"top\"><h1>{html.escape(assignment)}</h1>"
            f"{_block(lines)}</header><main></main></body></html>\n")


def _page_of_its_own(out: Path, student: str, assignment: str, lines: list[str]) -> bool:
    """Write :func:`decision_page` where there is no page yet (names checked, no link
    followed); True when written."""
    from autograder.grader.submissions import is_safe_name

    if not lines or not (is_safe_name(student) and is_safe_name(assignment)):
        return False
    folder = out / student / assignment
    for place in (out / student, folder, folder / PAGE):
        if place.is_symlink():
            return False
    if (folder / PAGE).exists():
        return False
    folder.mkdir(parents=True, exist_ok=True)
    (folder / PAGE).write_text(decision_page(student, assignment, lines), encoding="utf-8")
    return True


def show_decisions(out: Path, results: Iterable[Result],
                   decisions: dict[tuple[str, str], Decision],
                   applied: Iterable[Applied]) -> int:
    """Write each result's decisions into its feedback page under ``out``; return how many
    pages changed. A page that is a link, or not a regular file, is left alone. A learner
    excused or given the term's ``missing`` points, with no page, gets a page of its own
    saying why."""
    by_pair: dict[tuple[str, str], list[Applied]] = {}
    for a in applied:
        by_pair.setdefault((a.student, a.assignment), []).append(a)
    changed = 0
    results = list(results)
    for key, d in sorted(decisions.items()):
        if d.excused or (d.state == "missing" and d.score is not None):
            r = next((r for r in results if (r.student, r.assignment) == key),
                     Result(key[0], key[1], "", max_score=d.max_score))
            lines = decision_lines(r, d, by_pair.get(key, []))
            changed += _page_of_its_own(out, *key, lines)
    for r in results:
        page = out / r.student / r.assignment / PAGE
        try:
            info = os.lstat(page)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        text = page.read_text(encoding="utf-8")
        block = _block(decision_lines(r, decisions.get((r.student, r.assignment)),
                                      by_pair.get((r.student, r.assignment), [])))
        start, end = text.find(START), text.find(END)
        if 0 <= start < end:
            new = text[:start] + block + text[end + len(END):]
        elif "</header>" in text:  # a page made before the markers
            at = text.index("</header>")
            new = text[:at] + block + text[at:]
        else:
            continue
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed += 1
    return changed
