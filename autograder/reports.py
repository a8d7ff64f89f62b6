"""Reports for a grading run, written by :func:`write_reports` into the results folder.

``python -m autograder grade`` (one run, or one shard ``--shard K/N``) and ``python -m
autograder merge`` (shards combined) both end here. Everything written is a function of the
*set* of results only: rows are sorted, numbers are written one way (:func:`format_score`),
and no file records a time, a machine, a version or a path. So merging shards writes the same
bytes as grading everything in one run.

Files written in the results folder:

``grades.csv``
    One row per submission, sorted by student and assignment: ``student, assignment, score,
    max_score, status, message`` (status ``graded``, ``invalid`` or ``error``; an invalid
    submission scores 0 here).
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
    Canvas's gradebook import (Grades > Import): the header ``Student, ID, SIS User ID, SIS
    Login ID, Section`` then one column per assignment (the notebook's name, such as
    ``01_arrays``), a second row ``Points Possible`` with each assignment's points (as in
    Canvas's own export; optional on import, and Canvas reads it for an assignment the import
    creates), then one row per student. Canvas's importer wants ``Student`` and ``ID``
    first and ``Section`` as the last student column, with ``SIS User ID`` and ``SIS Login
    ID`` between them; it finds each row's student by ``ID`` (Canvas's user id), then ``SIS
    User ID``, then ``SIS Login ID``, then the name. The grader knows only the student's
    folder name (in GitHub Classroom, the GitHub username): it is written in ``Student``
    and ``SIS Login ID``; ``ID``, ``SIS User ID`` and ``Section`` are left empty. Where
    logins are not GitHub usernames, Canvas lists the students it could not find on the
    import page to match by hand, or fill ``ID`` from Canvas's own export first. Columns
    whose name matches no Canvas assignment are likewise offered to match or to create.
``grades-moodle.csv`` (``--export moodle``, :func:`write_moodle`)
    Moodle's "Import grades from CSV file" (Grade administration > Import > CSV file):
    the header ``username`` then one column per assignment, then one row per student and
    nothing else (Moodle takes every row for a user, and one it cannot find stops the whole
    import, so there is no points row). On the preview page set "Identify user by" to map
    from ``username`` to ``username``, or to ``ID number`` where the learners' GitHub
    usernames are recorded as their ID numbers (or replace the column with e-mail addresses),
    and map each assignment column to its grade item or to a new grade item.
    Comma-separated, UTF-8, ``.`` as the decimal point (Moodle reads it in any language), no
    thousands separator.

A student's cell in both exports is the score of a graded submission. An invalid submission,
one the grader failed on, or no submission at all leaves the cell empty, never 0: the grader
did not grade it, and a 0 would count against the student. Canvas's import page lists every
cell that would change (old and new score) before anything is saved. Moodle takes an empty
cell (or ``-``) as "no grade", which clears a grade entered by hand in that item, so check
the empty cells before importing over such grades. ``grades.csv`` and ``summary.md`` say why
each was not graded.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autograder.grading import QuestionResult, Result

if TYPE_CHECKING:
    from matplotlib.figure import Figure

EXPORTS = ("canvas", "moodle")
GRADES_COLUMNS = ("student", "assignment", "score", "max_score", "status", "message")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_POINTS_ROW = "Points Possible"
MOODLE_USER_COLUMN = "username"
CHANGES_COLUMNS = ("student", "assignment", "old_score", "new_score")
MESSAGE_CHARS = 120  # a failure message in the item analysis is cut to this
NOTE_CHARS = 200  # a submission's note in the summary table is cut to this
FIGURE = "scores.png"
CHANGES = "changes.csv"


# --- numbers and text ----------------------------------------------------------------------

def _decimal(value: float, places: int) -> str:
    text = f"{float(value):.{places}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def format_score(value: float) -> str:
    """``value`` as every report writes it: at most 6 decimals, no exponent, no trailing zeros.

    ``5.0`` -> ``"5"``, ``2/3`` -> ``"0.666667"``, ``-0.0`` -> ``"0"``.
    """
    return _decimal(value, 6)


def _short(value: float) -> str:
    """``value`` for reading: at most 2 decimals."""
    return _decimal(value, 2)


def _percent(fraction: float) -> str:
    return f"{100 * fraction:.0f}%"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _md(text: str) -> str:
    """``text`` safe inside a Markdown table cell (one line, ``|`` escaped)."""
    return _one_line(text).replace("|", "\\|")


# --- results ------------------------------------------------------------------------------

def sorted_results(results: Iterable[Result]) -> list[Result]:
    """``results`` in report order: by student and assignment (ties by status, score and
    message, so that the order never depends on the order they came in)."""
    return sorted(results, key=lambda r: (r.student, r.assignment, r.status, r.score, r.message))


def by_submission(results: Iterable[Result]) -> dict[tuple[str, str], Result]:
    """One result per (student, assignment), in report order (the last one in that order
    where a pair comes twice)."""
    return {(r.student, r.assignment): r for r in sorted_results(results)}


def write_grades(results: Iterable[Result], path: Path) -> None:
    """Write ``grades.csv``: one row per submission (columns :data:`GRADES_COLUMNS`)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(GRADES_COLUMNS)
        for r in sorted_results(results):
            writer.writerow([r.student, r.assignment, format_score(r.score),
                             format_score(r.max_score), r.status, r.message])


# --- LMS exports --------------------------------------------------------------------------

@dataclass(frozen=True)
class ScoreGrid:
    """Scores as a student x assignment grid, the shape both LMS imports take."""

    students: list[str]
    assignments: list[str]
    cells: dict[tuple[str, str], str]  # (student, assignment) -> score; absent: no grade
    points: dict[str, str]  # assignment -> its points ("" when no submission says)

    def row(self, student: str) -> list[str]:
        """The student's cells, one per assignment in column order ("" for no grade)."""
        return [self.cells.get((student, a), "") for a in self.assignments]


def score_grid(results: Iterable[Result]) -> ScoreGrid:
    """The grid of graded scores: every student and assignment in ``results`` (sorted), a
    cell for each graded submission; invalid and error submissions, like missing ones,
    get none."""
    latest = by_submission(results)
    points: dict[str, float] = {}
    for (_, assignment), r in latest.items():
        points[assignment] = max(points.get(assignment, 0.0), r.max_score)
    return ScoreGrid(
        students=sorted({s for s, _ in latest}),
        assignments=sorted(points),
        cells={key: format_score(r.score) for key, r in latest.items() if r.status == "graded"},
        points={a: format_score(p) if p > 0 else "" for a, p in points.items()},
    )


def write_canvas(results: Iterable[Result], path: Path) -> None:
    """Write a Canvas gradebook import CSV (format in the module docstring).

    The student's folder name goes in ``Student`` and ``SIS Login ID``; ``ID``, ``SIS User
    ID`` and ``Section`` stay empty. Not graded: an empty cell.
    """
    book = score_grid(results)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([*CANVAS_COLUMNS, *book.assignments])
        writer.writerow([CANVAS_POINTS_ROW, "", "", "", "",
                         *(book.points[a] for a in book.assignments)])
        for student in book.students:
            writer.writerow([student, "", "", student, "", *book.row(student)])


def write_moodle(results: Iterable[Result], path: Path) -> None:
    """Write a Moodle "Import grades from CSV file" CSV: ``username`` and one column per
    assignment, one row per student (format in the module docstring). Not graded: an empty
    cell."""
    book = score_grid(results)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([MOODLE_USER_COLUMN, *book.assignments])
        for student in book.students:
            writer.writerow([student, *book.row(student)])


EXPORT_WRITERS: dict[str, Callable[[Iterable[Result], Path], None]] = {
    "canvas": write_canvas, "moodle": write_moodle}


def export_path(out: Path, name: str) -> Path:
    """Where export ``name`` (one of :data:`EXPORTS`) is written in ``out``."""
    return out / f"grades-{name}.csv"


# --- item analysis ------------------------------------------------------------------------

@dataclass(frozen=True)
class QuestionStats:
    """How one question of one assignment went, over the graded submissions."""

    assignment: str
    question: str
    graded: int  # graded submissions that have this question
    passed: int
    mean_score: float
    max_score: float
    failure: str = ""  # the most common failure message ("" when none failed)
    failure_count: int = 0

    @property
    def pass_rate(self) -> float:
        """Passed / graded (0 when none was graded)."""
        return self.passed / self.graded if self.graded else 0.0


def failure_text(question: QuestionResult) -> str:
    """How a question that did not pass is counted: its message (or, without one, its
    status) on one line, cut to :data:`MESSAGE_CHARS` characters."""
    return _cut(_one_line(question.message) or question.status, MESSAGE_CHARS)


def most_common(texts: Iterable[str]) -> tuple[str, int]:
    """The most frequent of ``texts`` and its count; a tie goes to the first in sort order;
    ``("", 0)`` for none."""
    counts = Counter(texts)
    if not counts:
        return "", 0
    return min(counts.items(), key=lambda item: (-item[1], item[0]))


def item_analysis(results: Iterable[Result]) -> list[QuestionStats]:
    """Per assignment (sorted) and question (in notebook order), over graded submissions
    only: how many were graded and passed, the mean score and the most common failure."""
    found: dict[tuple[str, str], list[QuestionResult]] = {}
    for r in by_submission(results).values():
        if r.status == "graded":
            for q in r.questions:
                found.setdefault((r.assignment, q.id), []).append(q)
    first_seen = {key: i for i, key in enumerate(found)}  # report order: a function of the set
    stats = []
    for assignment, question in sorted(found, key=lambda k: (k[0], first_seen[k])):
        qs = found[(assignment, question)]
        failure, count = most_common(failure_text(q) for q in qs if q.status != "passed")
        stats.append(QuestionStats(
            assignment, question, graded=len(qs), passed=sum(q.status == "passed" for q in qs),
            mean_score=sum(q.score for q in qs) / len(qs), max_score=max(q.max_score for q in qs),
            failure=failure, failure_count=count))
    return stats


# --- regrade changes ----------------------------------------------------------------------

@dataclass(frozen=True)
class Change:
    """A score that differs from the previous grading (None: no row then, or now)."""

    student: str
    assignment: str
    old: float | None
    new: float | None


def read_scores(path: Path) -> dict[tuple[str, str], float]:
    """The scores in a ``grades.csv``, by (student, assignment).

    Raises:
        ValueError: the file cannot be read or is not a ``grades.csv`` as written here;
            the message says why (without the file's path).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except OSError as exc:
        raise ValueError(exc.strerror or type(exc).__name__) from None
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        columns = reader.fieldnames or []
        missing = [c for c in ("student", "assignment", "score") if c not in columns]
        if missing:
            raise ValueError(f"no {', '.join(missing)} column")
        scores = {}
        for row in reader:
            try:
                score = float(row["score"])
            except (TypeError, ValueError):
                raise ValueError(f"line {reader.line_num}: the score {row['score']!r} is not a "
                                 "number") from None
            scores[(row["student"], row["assignment"])] = score
    except csv.Error as exc:
        raise ValueError(f"not CSV ({exc})") from None
    return scores


def score_changes(old: dict[tuple[str, str], float],
                  new: dict[tuple[str, str], float]) -> list[Change]:
    """Scores that changed, appeared or disappeared from ``old`` to ``new``, sorted by
    (student, assignment); equal as written (:func:`format_score`) counts as unchanged."""
    def written(score: float | None) -> str | None:
        return None if score is None else format_score(score)

    return [Change(*key, old.get(key), new.get(key)) for key in sorted(old.keys() | new.keys())
            if written(old.get(key)) != written(new.get(key))]


def write_changes(changes: Sequence[Change], path: Path) -> None:
    """Write ``changes.csv`` (columns :data:`CHANGES_COLUMNS`; empty for no row)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(CHANGES_COLUMNS)
        for c in changes:
            writer.writerow([c.student, c.assignment, "" if c.old is None else format_score(c.old),
                             "" if c.new is None else format_score(c.new)])


@dataclass(frozen=True)
class Regrade:
    """What the folder's previous ``grades.csv`` says about this grading."""

    previous: bool  # the folder held a grades.csv
    changes: list[Change]
    problem: str = ""  # why the previous grades.csv could not be read


def compare_with_previous(path: Path, results: Iterable[Result]) -> Regrade:
    """Compare ``results`` with the ``grades.csv`` at ``path`` (call before replacing it)."""
    if not path.exists():
        return Regrade(previous=False, changes=[])
    try:
        old = read_scores(path)
    except ValueError as exc:
        return Regrade(previous=True, changes=[], problem=str(exc))
    new = {key: r.score for key, r in by_submission(results).items()}
    return Regrade(previous=True, changes=score_changes(old, new))


# --- figure -------------------------------------------------------------------------------

def scores_figure(results: Iterable[Result]) -> Figure | None:
    """Score distribution per assignment and pass rate per question (graded submissions
    only), as a matplotlib figure on the Agg canvas; None when nothing was graded."""
    graded = [r for r in by_submission(results).values() if r.status == "graded"]
    if not graded:
        return None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    stats = item_analysis(graded)
    assignments = sorted({r.assignment for r in graded})
    rows = max(len(assignments), len(stats), 1)
    fig = Figure(figsize=(12, max(3.5, 1.8 + 0.32 * rows)), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.25])
    _plot_distribution(left, graded, assignments)
    _plot_pass_rates(right, stats, assignments)
    fig.suptitle(f"Grading summary: {len(graded)} graded submission(s)", fontsize=13)
    return fig


_JITTER = (0.0, 0.06, -0.06, 0.12, -0.12, 0.18, -0.18)  # fixed, so each run draws the same


def _plot_distribution(ax, graded: list[Result], assignments: list[str]) -> None:
    percents = [[100 * r.score / r.max_score if r.max_score else 0.0
                 for r in graded if r.assignment == a] for a in assignments]
    positions = list(range(len(assignments)))
    box = {"positions": positions, "widths": 0.5, "showfliers": False}
    try:
        ax.boxplot(percents, orientation="horizontal", **box)
    except TypeError:  # matplotlib before 3.10
        ax.boxplot(percents, vert=False, **box)
    for y, values in zip(positions, percents, strict=True):
        jitter = [_JITTER[i % len(_JITTER)] for i in range(len(values))]
        ax.scatter(values, [y + j for j in jitter], s=14, alpha=0.6, color="tab:blue", zorder=3)
    ax.set_yticks(positions, [f"{a} (n={len(v)})" for a, v in zip(assignments, percents,
                                                                   strict=True)])
    ax.set_ylim(len(assignments) - 0.5, -0.5)  # first assignment on top
    ax.set_xlim(-3, 103)
    ax.set_xlabel("Score (% of the assignment's points)")
    ax.set_title("Score distribution per assignment")
    ax.grid(axis="x", alpha=0.3)


def _plot_pass_rates(ax, stats: list[QuestionStats], assignments: list[str]) -> None:
    colors = {a: f"C{i % 10}" for i, a in enumerate(assignments)}
    positions = list(range(len(stats)))
    rates = [100 * s.pass_rate for s in stats]
    ax.barh(positions, rates, color=[colors[s.assignment] for s in stats], height=0.7)
    for y, (rate, s) in enumerate(zip(rates, stats, strict=True)):
        ax.text(min(rate, 100) + 1, y, f"{rate:.0f}% of {s.graded}", va="center", fontsize=8)
    ax.set_yticks(positions, [f"{s.assignment} · {s.question}" for s in stats], fontsize=9)
    ax.set_ylim(max(len(stats), 1) - 0.5, -0.5)
    ax.set_xlim(0, 118)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("Pass rate (% of graded submissions)")
    ax.set_title("Pass rate per question")
    ax.grid(axis="x", alpha=0.3)
    if not stats:
        ax.text(50, 0, "no questions graded", ha="center", va="center")


def write_figure(results: Iterable[Result], path: Path) -> bool:
    """Write ``scores.png`` (no software or time stamp in it); remove an earlier one and
    return False when nothing was graded."""
    fig = scores_figure(results)
    if fig is None:
        path.unlink(missing_ok=True)
        return False
    fig.savefig(path, format="png", dpi=100, metadata={"Software": None})
    return True


# --- summary.md ---------------------------------------------------------------------------

def _grades_table(results: list[Result]) -> list[str]:
    lines = ["# Grades", "", "| student | assignment | score | status | notes |",
             "|---|---|---|---|---|"]
    for r in results:
        failed = [q.id for q in r.questions if q.status != "passed"]
        note = r.message or (("not passed: " + ", ".join(failed)) if failed else "")
        note = _md(_cut(_one_line(note), NOTE_CHARS))
        lines.append(f"| {_md(r.student)} | {_md(r.assignment)} | {format_score(r.score)} / "
                     f"{format_score(r.max_score)} | {r.status} | {note} |")
    return lines


def _counts(results: list[Result]) -> list[str]:
    graded = sum(r.status == "graded" for r in results)
    return ["", f"{len(results)} submission(s): {graded} graded, "
            f"{sum(r.status == 'invalid' for r in results)} invalid, "
            f"{sum(r.status == 'error' for r in results)} error(s)."]


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
        return lines + [f"**The previous grades.csv could not be read** ({_md(regrade.problem)})"
                        ", so changes are not listed; it has been replaced."]
    if not regrade.changes:
        return lines + ["No score changed since the previous grading."]

    def shown(score: float | None) -> str:
        return "—" if score is None else format_score(score)

    lines += [f"{len(regrade.changes)} score(s) changed (also in {CHANGES}):", ""]
    return lines + [f"- {_md(c.student)} · {_md(c.assignment)}: {shown(c.old)} → {shown(c.new)}"
                    for c in regrade.changes]


def _item_analysis_section(stats: list[QuestionStats]) -> list[str]:
    lines = ["", "## Item analysis", "",
             "Graded submissions only. Mean score is of the question's points; the failure is "
             "the most common message among the submissions that did not pass."]
    if not stats:
        return lines + ["", "No graded submission."]
    for assignment in sorted({s.assignment for s in stats}):
        lines += ["", f"### {_md(assignment)}", "",
                  "| question | graded | passed | pass rate | mean score | most common failure |",
                  "|---|---|---|---|---|---|"]
        for s in (s for s in stats if s.assignment == assignment):
            share = s.mean_score / s.max_score if s.max_score else 0.0
            failure = f"{_md(s.failure)} ({s.failure_count})" if s.failure else ""
            lines.append(f"| {_md(s.question)} | {s.graded} | {s.passed} | {_percent(s.pass_rate)}"
                         f" | {_short(s.mean_score)} / {format_score(s.max_score)} "
                         f"({_percent(share)}) | {failure} |")
    return lines


def _figure_section(figure: bool | str) -> list[str]:
    if figure is True:
        return ["", "## Scores", "", f"![Scores]({FIGURE})"]
    if figure:
        return ["", "## Scores", "", f"No figure: {figure}."]
    return []


def summary_markdown(results: Iterable[Result], regrade: Regrade | None = None,
                     figure: bool | str = False) -> str:
    """The text of ``summary.md``: the table, counts, isolation warning, changes since the
    previous grading, item analysis and figure. ``figure``: True when ``scores.png`` was
    written, or why it was not."""
    ordered = sorted_results(results)
    lines = (_grades_table(ordered) + _counts(ordered) + _isolation_warning(ordered)
             + _changes_section(regrade or Regrade(previous=False, changes=[]))
             + _item_analysis_section(item_analysis(ordered)) + _figure_section(figure))
    return "\n".join(lines) + "\n"


# --- all of it ----------------------------------------------------------------------------

def _figure(results: list[Result], path: Path) -> bool | str:
    try:
        return write_figure(results, path)
    except ImportError:
        path.unlink(missing_ok=True)
        return "matplotlib is not installed"


def write_reports(results: Iterable[Result], out: Path, exports: Sequence[str] = ()) -> None:
    """Write ``grades.csv``, ``summary.md``, ``scores.png``, ``changes.csv`` (on a regrade
    that changed a score) and the ``exports`` asked for (:data:`EXPORTS`) into ``out``.

    Raises:
        ValueError: an export not in :data:`EXPORTS` (before anything is written).
    """
    unknown = sorted(set(exports) - set(EXPORTS))
    if unknown:
        raise ValueError(f"unknown export {', '.join(unknown)}; known: {', '.join(EXPORTS)}")
    ordered = sorted_results(results)
    regrade = compare_with_previous(out / "grades.csv", ordered)  # before it is replaced
    write_grades(ordered, out / "grades.csv")
    if regrade.changes:
        write_changes(regrade.changes, out / CHANGES)
    else:
        (out / CHANGES).unlink(missing_ok=True)
    for name in sorted(set(exports)):
        EXPORT_WRITERS[name](ordered, export_path(out, name))
    figure = _figure(ordered, out / FIGURE)
    (out / "summary.md").write_text(summary_markdown(ordered, regrade, figure), encoding="utf-8")
