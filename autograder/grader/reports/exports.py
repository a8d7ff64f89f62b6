"""Gradebook imports for learning-management systems: Canvas and Moodle (see the package's
docstring for the formats)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from autograder.grader.reports.common import SafeCsvWriter, by_submission, format_score
from autograder.grader.result import Result

EXPORTS = ("canvas", "moodle")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_POINTS_ROW = "Points Possible"
MOODLE_USER_COLUMN = "username"


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
        writer = SafeCsvWriter(fh)
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
        writer = SafeCsvWriter(fh)
        writer.writerow([MOODLE_USER_COLUMN, *book.assignments])
        for student in book.students:
            writer.writerow([student, *book.row(student)])


EXPORT_WRITERS: dict[str, Callable[[Iterable[Result], Path], None]] = {
    "canvas": write_canvas, "moodle": write_moodle}


def export_path(out: Path, name: str) -> Path:
    """Where export ``name`` (one of :data:`EXPORTS`) is written in ``out``."""
    return out / f"grades-{name}.csv"
