"""Reports for a grading run, written by :func:`write_reports` into the results folder.

``python -m autograder grade`` (one run, or one shard ``--shard K/N``) and ``python -m
autograder merge`` (shards combined) both end here. Everything written is a function of the
*set* of results only: rows are sorted, numbers are written one way (:func:`format_score`),
and no file records a time, a machine, a version or a path. So merging shards writes the same
bytes as grading everything in one run.

Files written in the results folder:

``grades.csv``
    One row per submission, sorted by student and assignment: ``student, assignment, score,
    max_score, status, message, final_score, decision`` (status ``graded``, ``invalid``,
    ``error`` or ``not_submitted``; an invalid submission scores 0 here), and one per learner
    and assignment the term's decisions cover with no submission (an empty score; status
    ``pending``, ``open``, ``missing``, ``excused`` or ``unreleased``). ``final_score``: what
    the LMS imports write (empty: the LMS's cell is left); ``decision``: why.
``summary.md``
    The same as a table, the counts by status, a warning when submissions ran unisolated,
    the changes since the previous grading (below), an item analysis and the figure. The
    item analysis counts graded submissions only: per assignment and question, how many were
    graded, how many passed, the pass rate, the mean score (of the question's points) and
    the most common failure message (messages of the questions not passed, on one line, cut
    to 120 characters; the most frequent, ties to the first in sort order).
``scores.png``
    Score distribution per assignment (percent of the assignment's points, one box and one
    dot per graded submission) and pass rate per question (horizontal bars). Graded
    submissions only; not written (and an earlier one removed) when nothing was graded.
``changes.csv``
    Only when the folder already held a ``grades.csv`` (an earlier run: a regrade) and a
    score changed, appeared or disappeared: ``student, assignment, old_score, new_score``,
    empty where there was or is no row. The earlier ``grades.csv`` is read before it is
    replaced. ``summary.md`` then lists them as ``student · assignment: old → new``, or says
    that no score changed. A folder without an earlier ``grades.csv`` gets no such section,
    so a fresh merge and a fresh single run stay identical. An earlier ``grades.csv`` that
    cannot be read is named in ``summary.md`` and replaced; nothing fails.
``grades-canvas.csv`` (``--export canvas``, :func:`write_canvas`)
    Canvas's gradebook import (Grades > Import). With ``--canvas-gradebook`` (the course's
    own export, Grades > Export) it is that file again: Canvas's identity columns (``Student,
    ID, SIS User ID, SIS Login ID``, ``Integration ID`` when present, ``Section``) and rows
    as exported, the ``Manual Posting`` and ``Points Possible`` rows kept, the read-only
    totals (``(read only)`` in the points row: Canvas ignores them on import) left out, and
    each course assignment's score written into the Canvas column whose title names it
    (``Lab 1: Arrays (51201)`` names ``01_arrays``; ``--canvas-columns`` maps the others),
    scaled to that column's points possible. Canvas finds a row's student by ``ID`` and an
    assignment by its ``Title (id)`` heading, so nothing new is created and nobody is guessed.
    A student is matched through the roster (``--roster``: GitHub username -> identifier),
    the identifier looked up in ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Integration ID``
    and then the name; a student with no roster row, or whose identifier is in no Canvas row,
    in several, or in one another student also reaches, is left out and listed in
    ``unmatched.csv``. An assignment no Canvas title names gets no column (listed in
    ``summary.md``). Without ``--canvas-gradebook``: the header ``Student, ID, SIS User ID,
    SIS Login ID, Section``, a ``Points Possible`` row and one column per assignment with the
    folder name in ``Student`` and ``SIS Login ID`` (Canvas then asks to match by hand).
``grades-moodle.csv`` (``--export moodle``, :func:`write_moodle`)
    Moodle's "Import grades from CSV file" (Grade administration > Import > CSV file). With
    ``--moodle-gradebook`` (Moodle's plain-text export): that file again, its user fields
    and ``Last downloaded from this course`` kept, only the grade items (``Kind: Title
    (Real)``) whose title names one of this run's assignments, learners matched by the
    roster's identifier case-insensitively and written as Moodle spells them. Else, with
    ``--roster``: the first column is the roster's identifier, headed ``Email address`` when
    every identifier is an e-mail address and ``ID number`` otherwise (on the preview page,
    "Identify user by": map from that column to the user field of that name), one row per
    student on the roster and no one else (Moodle stops the whole import at a user it cannot
    find); the rest are in ``unmatched.csv``. Without a roster: ``username`` (the folder
    name). Then one column per assignment, mapped on the preview page to its grade item
    (raw points: give the grade item the assignment's points as its maximum). Comma-separated,
    UTF-8, ``.`` as the decimal point, no points row.
``unmatched.csv``
    Written when an export left students out: ``student, export, reason``. ``summary.md``
    lists them too, beside the hand-set scores (``--overrides``, and manual scores in the
    gradebook) with their reasons.

Only assignments some result gives points to (graded, or left as released) get an export
column: an unknown notebook (``Untitled.ipynb``) never does.

A learner's cell in both exports is what the term's decision says
(:mod:`autograder.grader.classroom.term`): the score of a graded submission (less a late
penalty), the term's points for missing work once the assignment closed, ``EX`` (Canvas) for
excused work; and nothing, the LMS's cell left as it is, for work not submitted before the due
time (a notebook left as released is never a 0), not graded (invalid, an error) or without a
term file saying otherwise. A cell of the LMS's export that already holds ``EX`` or another
score is kept unless the instructor asks (``--replace-lms-excused``,
``--replace-lms-scores``); each kept cell is listed in ``summary.md`` and in
``kept-in-lms.csv`` (``student, export, assignment, lms, grader, reason``). Moodle's import
reads an empty cell (or ``-``) as "no grade", clearing a grade Moodle has: with
``--moodle-gradebook`` every cell left carries Moodle's own value, and without it
``summary.md`` says how many cells are empty.

``summary-full.md``
    Only when ``summary.md`` would pass :data:`SUMMARY_LIMIT` bytes (GitHub's job summary takes
    1 MiB): the whole summary; ``summary.md`` then leaves rows of its grades table out (and,
    if still too long, its last lines) and says so.

The decisions also reach each learner's feedback page (:mod:`.pages`) and ``grades.csv``
(``final_score``, ``decision``); ``summary.md`` lists, per learner, what needs attention.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from autograder.grader.classroom.classlist import Classroom
from autograder.grader.reports.common import FIGURE, format_score, md, sorted_results
from autograder.grader.reports.exports import (
    CANVAS_COLUMNS,
    EXPORT_WRITERS,
    EXPORTS,
    KEPT,
    UNMATCHED,
    ExportReport,
    decisions_of,
    export_path,
    write_kept,
    write_unmatched,
)
from autograder.grader.reports.figure import scores_figure, write_figure
from autograder.grader.reports.grades import (
    CHANGES,
    CHANGES_COLUMNS,
    compare_with_previous,
    write_changes,
    write_grades,
)
from autograder.grader.reports.pages import show_decisions
from autograder.grader.reports.summary import (
    FULL_SUMMARY,
    MESSAGE_CHARS,
    SUMMARY_LIMIT,
    attention_section,
    bounded,
    item_analysis,
    summary_markdown,
)
from autograder.grader.result import Result

__all__ = ["CANVAS_COLUMNS", "CHANGES_COLUMNS", "EXPORTS", "FULL_SUMMARY", "MESSAGE_CHARS",
           "SUMMARY_LIMIT", "format_score", "item_analysis", "scores_figure", "write_reports"]


def classroom_section(classroom: Classroom | None, found: Sequence[ExportReport]) -> list[str]:
    """``summary.md``'s lines on the hand-set scores (with their reasons) and on what the
    exports could not place (students left out, columns not found)."""
    lines: list[str] = []
    if classroom is not None and classroom.warnings:
        lines += ["", "## Warnings", "", *(f"- {md(w)}" for w in classroom.warnings)]
    if classroom is not None and (classroom.applied or classroom.override_problems):
        lines += ["", "## Scores set by hand", ""]

        def shown(score: float | None) -> str:
            return "—" if score is None else format_score(score)

        for a in classroom.applied:
            what = f"{md(a.student)} · {md(a.assignment)}" + (f" · {md(a.question)}"
                                                              if a.question else "")
            lines.append(f"- {what}: {shown(a.old)} → {shown(a.new)} ({md(a.reason)})")
        for problem in classroom.override_problems:
            lines.append(f"- **not applied**: {md(problem)}")
    unmatched = [u for report in found for u in report.unmatched]
    notes = [n for report in found for n in report.notes]
    kept = [k for report in found for k in report.kept]
    if kept:
        lines += ["", "## Kept in the LMS", "",
                  f"{len(kept)} cell(s) of the LMS's export already hold a value the grader "
                  f"would change; the imports keep them (also in {KEPT}):", ""]
        lines += [f"- {md(k.student)} · {md(k.assignment)} ({k.export}): keeps "
                  f"{md(k.lms)}, the grader says {md(k.grader)}: {md(k.reason)}" for k in kept]
    if unmatched or notes:
        lines += ["", "## Left out of the gradebook imports", ""]
        if unmatched:
            lines += [f"{len(unmatched)} student(s) not matched, so not in the import "
                      f"(also in {UNMATCHED}):", ""]
            lines += [f"- {md(u.student)} ({u.export}): {md(u.reason)}" for u in unmatched]
        if notes:
            lines += ["", *(f"- {md(n)}" for n in notes)]
    return lines


FETCHED = "fetched.csv"  # fetch's record, copied into the results by grade and merge


def deadline_section(path: Path) -> list[str]:
    """``summary.md``'s lines on the deadline, from the ``fetched.csv`` at ``path`` (none when
    it is absent or was fetched without a deadline): the commits taken, and who was late."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error):
        return []
    rows = [r for r in rows if r.get("deadline")]
    if not rows:
        return []
    late = [r for r in rows if (r.get("late_commits") or "0") != "0"]
    none = [r for r in rows if not r.get("commit")]
    lines = ["", "## Deadline", "",
             f"{len(rows)} repositories taken at their last commit by the deadline "
             f"({', '.join(sorted({md(r['deadline']) for r in rows}))}; commits and times in "
             f"{FETCHED}); {len(late)} with later commits, not taken; {len(none)} with no "
             "commit by then."]
    if late:
        lines.append("")
        lines += [f"- {md(r['student'])}: {md(r['late_commits'])} commit(s) after "
                  f"{md(r['deadline'])} (the last at {md(r.get('last_commit_time', ''))}); "
                  + (f"graded at {md(r['commit'][:12])} of {md(r['commit_time'])}"
                     if r.get("commit") else "nothing was committed by the deadline")
                  for r in sorted(late, key=lambda r: r["student"])]
    by_time = sorted(r["student"] for r in rows if (r.get("by_commit_time") or "0") != "0")
    if by_time:
        lines += ["", f"Judged by commit time, which a learner can set (no push GitHub's "
                      f"activity lists covers the commit; `fetch --require-push-times` refuses "
                      f"these): {', '.join(md(s) for s in by_time)}."]
    return lines


def _figure(results: list[Result], path: Path) -> bool | str:
    try:
        return write_figure(results, path)
    except ImportError:
        path.unlink(missing_ok=True)
        return "matplotlib is not installed"


def write_reports(results: Iterable[Result], out: Path, exports: Sequence[str] = (),
                  classroom: Classroom | None = None,
                  summary_limit: int = SUMMARY_LIMIT) -> None:
    """Write ``grades.csv``, ``summary.md``, ``scores.png``, ``changes.csv`` (on a regrade
    that changed a score) and the ``exports`` asked for (:data:`EXPORTS`) into ``out``;
    ``unmatched.csv`` when an export left a student out. ``results`` already carry any
    hand-set scores; ``classroom`` holds the roster, the Canvas gradebook and the overrides
    applied (listed in ``summary.md`` with their reasons).

    Raises:
        ValueError: an export not in :data:`EXPORTS` (before anything is written).
    """
    unknown = sorted(set(exports) - set(EXPORTS))
    if unknown:
        raise ValueError(f"unknown export {', '.join(unknown)}; known: {', '.join(EXPORTS)}")
    ordered = sorted_results(results)
    decided = decisions_of(ordered, classroom)
    # before grades.csv is replaced; the scores recorded (late penalty and all)
    regrade = compare_with_previous(out / "grades.csv", ordered, decided)
    write_grades(ordered, out / "grades.csv", decided, classroom.applied if classroom else ())
    if regrade.changes:
        write_changes(regrade.changes, out / CHANGES)
    else:
        (out / CHANGES).unlink(missing_ok=True)
    found = [EXPORT_WRITERS[name](ordered, export_path(out, name), classroom)
             for name in sorted(set(exports))]
    unmatched = [u for report in found for u in report.unmatched]
    write_unmatched(unmatched, out / UNMATCHED)
    write_kept([k for report in found for k in report.kept], out / KEPT)
    show_decisions(out, ordered, decided, classroom.applied if classroom else [])
    roster = classroom.roster if classroom is not None else None
    rostered = [e.github_username for e in roster.entries if e.github_username] if roster else []
    unlinked = [(e.identifier or e.name, "on the roster, no GitHub username linked: nothing "
                 "could be fetched or graded") for e in roster.entries
                if not e.github_username and (e.identifier or e.name)] if roster else []
    extra = (attention_section(ordered, decided, [(u.student, f"not in the {u.export} import: "
                                                   f"{u.reason}") for u in unmatched] + unlinked,
                               rostered)
             + classroom_section(classroom, found) + deadline_section(out / FETCHED))
    figure = _figure(ordered, out / FIGURE)
    text = summary_markdown(ordered, regrade, figure, extra)
    short = bounded(text, summary_limit)
    if short != text:
        (out / FULL_SUMMARY).write_text(text, encoding="utf-8")
    else:
        (out / FULL_SUMMARY).unlink(missing_ok=True)
    (out / "summary.md").write_text(short, encoding="utf-8")
