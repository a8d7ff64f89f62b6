"""``summary.md``: the grades as a table, counts, regrade changes, and the item analysis."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autograder.grader.classroom.term import Decision
from autograder.grader.reports.common import (
    FIGURE,
    by_submission,
    cut,
    format_score,
    md,
    one_line,
    percent,
    short,
    sorted_results,
)
from autograder.grader.reports.grades import CHANGES, Regrade
from autograder.grader.result import QuestionResult, Result

MESSAGE_CHARS = 120  # a failure message in the item analysis is cut to this
NOTE_CHARS = 200  # a submission's note in the summary table is cut to this


@dataclass(frozen=True)
class QuestionStats:
    """How one question of one assignment went, over the graded submissions."""

    assignment: str
    question: str
    graded: int  # graded submissions that have this question
    passed: int
    mean_score: float
    max_score: float
    failure: str = ""  # the most common failure among attempts ("" when none failed)
    failure_count: int = 0
    not_attempted: int = 0  # the stub left as released (counted apart from the failures)

    @property
    def pass_rate(self) -> float:
        """Passed / graded (0 when none was graded)."""
        return self.passed / self.graded if self.graded else 0.0


def failure_text(question: QuestionResult) -> str:
    """How a question that did not pass is counted: its message (or, without one, its
    status) on one line, cut to :data:`MESSAGE_CHARS` characters."""
    return cut(one_line(question.message) or question.status, MESSAGE_CHARS)


def most_common(texts: Iterable[str]) -> tuple[str, int]:
    """The most frequent of ``texts`` and its count; a tie goes to the first in sort order;
    ``("", 0)`` for none."""
    counts = Counter(texts)
    if not counts:
        return "", 0
    return min(counts.items(), key=lambda item: (-item[1], item[0]))


NOT_ATTEMPTED = "not attempted"  # grading's message for a stub left as released


def _not_attempted(question: QuestionResult) -> bool:
    return question.status != "passed" and question.message == NOT_ATTEMPTED


def item_analysis(results: Iterable[Result]) -> list[QuestionStats]:
    """Per assignment (sorted) and question (in notebook order), over graded submissions
    only: how many were graded and passed, how many were not attempted, the mean score and
    the most common failure among the attempts (a stub left as released is not a mistake:
    counted apart, it would otherwise hide the real ones)."""
    found: dict[tuple[str, str], list[QuestionResult]] = {}
    for r in by_submission(results).values():
        if r.status == "graded":
            for q in r.questions:
                found.setdefault((r.assignment, q.id), []).append(q)
    first_seen = {key: i for i, key in enumerate(found)}  # report order: a function of the set
    stats = []
    for assignment, question in sorted(found, key=lambda k: (k[0], first_seen[k])):
        qs = found[(assignment, question)]
        failure, count = most_common(failure_text(q) for q in qs
                                     if q.status != "passed" and not _not_attempted(q))
        stats.append(QuestionStats(
            assignment, question, graded=len(qs), passed=sum(q.status == "passed" for q in qs),
            mean_score=sum(q.score for q in qs) / len(qs), max_score=max(q.max_score for q in qs),
            failure=failure, failure_count=count,
            not_attempted=sum(_not_attempted(q) for q in qs)))
    return stats


def _grades_table(results: list[Result]) -> list[str]:
    lines = ["# Grades", "", "| student | assignment | score | status | notes |",
             "|---|---|---|---|---|"]
    for r in results:
        failed = [q.id for q in r.questions if q.status != "passed"]
        note = r.message or (("not passed: " + ", ".join(failed)) if failed else "")
        note = md(cut(one_line(note), NOTE_CHARS))
        lines.append(f"| {md(r.student)} | {md(r.assignment)} | {format_score(r.score)} / "
                     f"{format_score(r.max_score)} | {r.status} | {note} |")
    return lines


def _counts(results: list[Result]) -> list[str]:
    graded = sum(r.status == "graded" for r in results)
    untouched = sum(r.status == "not_submitted" for r in results)
    return ["", f"{len(results)} submission(s): {graded} graded, "
            f"{sum(r.status == 'invalid' for r in results)} invalid, "
            f"{sum(r.status == 'error' for r in results)} error(s)"
            + (f", {untouched} left as released (not submitted)." if untouched else ".")]


def _isolation_warning(results: list[Result]) -> list[str]:
    if not any(r.isolation == "none" for r in results if r.status != "invalid"):
        return []
    return ["", "**Submissions ran unisolated**: no sandbox (bubblewrap) was available, "
            "so their code could read and write what the grader can and reach the "
            "network. See autograder/SECURITY.md."]


def _changes_section(regrade: Regrade) -> list[str]:
    if not regrade.previous:
        return []
    lines = ["", "## Changes since the previous grading", ""]
    if regrade.problem:
        return lines + [f"**The previous grades.csv could not be read** ({md(regrade.problem)})"
                        ", so changes are not listed; it has been replaced."]
    if not regrade.changes:
        return lines + ["No score changed since the previous grading."]

    def shown(score: float | None) -> str:
        return "—" if score is None else format_score(score)

    lines += [f"{len(regrade.changes)} score(s) changed (also in {CHANGES}):", ""]
    return lines + [f"- {md(c.student)} · {md(c.assignment)}: {shown(c.old)} → {shown(c.new)}"
                    for c in regrade.changes]


def _item_analysis_section(stats: list[QuestionStats]) -> list[str]:
    lines = ["", "## Item analysis", "",
             "Graded submissions only. Mean score is of the question's points; the failure is "
             "the most common message among the attempts that did not pass (a question left "
             "as released is counted under not attempted instead)."]
    if not stats:
        return lines + ["", "No graded submission."]
    for assignment in sorted({s.assignment for s in stats}):
        lines += ["", f"### {md(assignment)}", "",
                  "| question | graded | passed | pass rate | not attempted | mean score "
                  "| most common failure |", "|---|---|---|---|---|---|---|"]
        for s in (s for s in stats if s.assignment == assignment):
            share = s.mean_score / s.max_score if s.max_score else 0.0
            failure = f"{md(s.failure)} ({s.failure_count})" if s.failure else ""
            lines.append(f"| {md(s.question)} | {s.graded} | {s.passed} | {percent(s.pass_rate)}"
                         f" | {s.not_attempted} | {short(s.mean_score)} / "
                         f"{format_score(s.max_score)} ({percent(share)}) | {failure} |")
    return lines


def _figure_section(figure: bool | str) -> list[str]:
    if figure is True:
        return ["", "## Scores", "", f"![Scores]({FIGURE})"]
    if figure:
        return ["", "## Scores", "", f"No figure: {figure}."]
    return []


def summary_markdown(results: Iterable[Result], regrade: Regrade | None = None,
                     figure: bool | str = False, extra: Sequence[str] = ()) -> str:
    """The text of ``summary.md``: the table, counts, isolation warning, changes since the
    previous grading, item analysis and figure. ``figure``: True when ``scores.png`` was
    written, or why it was not. ``extra``: more lines after the changes (hand-set scores,
    students the exports left out)."""
    ordered = sorted_results(results)
    lines = (_grades_table(ordered) + _counts(ordered) + _isolation_warning(ordered)
             + _changes_section(regrade or Regrade(previous=False, changes=[])) + list(extra)
             + _item_analysis_section(item_analysis(ordered)) + _figure_section(figure))
    return "\n".join(lines) + "\n"


def attention_section(results: Iterable[Result], decisions: dict[tuple[str, str], Decision],
                      unmatched: Iterable[tuple[str, str]] = (),
                      rostered: Iterable[str] = ()) -> list[str]:
    """``summary.md``'s per-learner "needs attention" list: work missing or late, not
    graded (invalid, an error, two files with work), learners an export could not place
    (``unmatched``: (student, why)), and ``rostered`` learners with nothing submitted."""
    items: dict[str, list[str]] = {}
    have = {r.student for r in results}
    for (student, assignment), d in sorted(decisions.items()):
        if d.needs_attention:
            what = {"open": "missing (late work still accepted)"}.get(d.state, d.state)
            items.setdefault(student, []).append(
                f"{md(assignment)}: {what}" + (f": {md(cut(one_line(d.note), NOTE_CHARS))}"
                                                if d.note else ""))
    for student in sorted(set(rostered) - have):
        items.setdefault(student, []).insert(0, "on the roster, nothing submitted")
    for student, why in unmatched:
        items.setdefault(student, []).append(md(why))
    if not items:
        return []
    lines = ["", "## Needs attention", "",
             f"{len(items)} learner(s): missing or late work, work not graded, a learner the "
             "exports could not place, or nothing submitted.", ""]
    for student in sorted(items):
        lines.append(f"- **{md(student)}**: " + "; ".join(items[student]))
    return lines


SUMMARY_LIMIT = 900 * 1024  # bytes: GitHub's job summary takes at most 1 MiB a step
FULL_SUMMARY = "summary-full.md"


def bounded(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """``text`` (``summary.md``) within ``limit`` bytes (UTF-8): the grades table's rows are
    dropped from its end first, then any lines past the limit, with a line saying how many
    and that the whole is :data:`FULL_SUMMARY`. ``text`` unchanged when it fits."""
    if len(text.encode()) <= limit:
        return text
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.startswith("|---")), -1) + 1
    last = next((i for i in range(first, len(lines)) if not lines[i].startswith("|")),
                len(lines)) if first else 0
    size = [len(line.encode()) + 1 for line in lines]
    over = sum(size) - limit + 400  # room for the notes
    drop = 0
    while first and drop < last - first and over > 0:
        over -= size[last - 1 - drop]
        drop += 1
    note = (f"*{drop} of {last - first} rows of this table are left out to keep the job "
            f"summary under GitHub's limit: every row is in {FULL_SUMMARY} and grades.csv "
            "(the results artifact).*")
    if drop:
        lines = lines[:last - drop] + ["", note] + lines[last:]
    if len("\n".join(lines).encode()) > limit:
        kept, total = [], 0
        for line in lines:
            total += len(line.encode()) + 1
            if total > limit - 400:
                break
            kept.append(line)
        lines = kept + ["", f"*The rest of this summary is left out to keep the job summary "
                            f"under GitHub's limit: the whole is {FULL_SUMMARY} (the results "
                            "artifact).*", ""]
    return "\n".join(lines)
