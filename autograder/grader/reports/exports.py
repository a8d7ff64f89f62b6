"""Gradebook imports for learning-management systems: Canvas and Moodle (see the package's
docstring for the formats)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from autograder.grader.classroom.classlist import CanvasGradebook, Classroom, Roster
from autograder.grader.reports.common import by_submission, format_score, write_csv
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
    # An assignment no submission gave points to (an unknown notebook such as Untitled, or
    # one whose every submission failed) gets no column: its cells would all be empty.
    points = {a: p for a, p in points.items() if p > 0}
    return ScoreGrid(
        students=sorted({s for s, _ in latest}),
        assignments=sorted(points),
        cells={key: format_score(r.score) for key, r in latest.items()
               if r.status == "graded" and key[1] in points},
        points={a: format_score(p) if p > 0 else "" for a, p in points.items()},
    )


@dataclass(frozen=True)
class Unmatched:
    """A student whose grades an export leaves out, and why."""

    student: str
    export: str  # canvas | moodle
    reason: str


@dataclass(frozen=True)
class ExportReport:
    """What writing an export found that the instructor must know."""

    unmatched: list[Unmatched]
    notes: list[str]  # columns not found, points not known, and the like


def _words(text: str) -> list[str]:
    """``text`` as lower-case words, numbers without leading zeros (``01_arrays`` and
    ``Lab 1: Arrays`` share ``1 arrays``)."""
    words = re.findall(r"[0-9]+|[^\W\d_]+", text.casefold())
    return [str(int(w)) if w.isdigit() else w for w in words]


def _names(title: str, assignment: str) -> bool:
    """Does the Canvas title ``title`` name the course assignment ``assignment`` (its words
    appear in the title, in order, next to one another)?"""
    want, have = _words(assignment), _words(title)
    return bool(want) and any(have[i:i + len(want)] == want
                              for i in range(len(have) - len(want) + 1))


def canvas_columns(book: CanvasGradebook, assignments: Iterable[str],
                   mapping: dict[str, str]) -> tuple[dict[str, int], list[str]]:
    """The Canvas column of each course assignment: the one ``mapping`` names (a heading or
    a title), else the one whose title names it; (assignment -> column, notes on the ones
    with none or with more than one)."""
    graded = book.assignment_columns()
    found: dict[str, int] = {}
    notes = []
    for a in assignments:
        if a in mapping:
            target = mapping[a]
            hits = [i for i, title in graded.items()
                    if book.header[i] == target or title == target]
            if len(hits) != 1:
                notes.append(f"{a}: the column map names {target!r}, which is "
                             f"{'not a graded column' if not hits else 'ambiguous'} in the "
                             "Canvas gradebook; its scores are not exported")
                continue
        else:
            hits = [i for i, title in graded.items() if _names(title, a)]
            if not hits:
                notes.append(f"{a}: no Canvas assignment's title names it; create the "
                             "assignment in Canvas and export the gradebook again, or map it "
                             "(--canvas-columns); its scores are not exported")
                continue
            if len(hits) > 1:
                shown = ", ".join(book.header[i] for i in hits)
                notes.append(f"{a}: several Canvas columns name it ({shown}); map one "
                             "(--canvas-columns); its scores are not exported")
                continue
        found[a] = hits[0]
    return found, notes


CANVAS_KEYS = ("ID", "SIS User ID", "SIS Login ID", "Integration ID", "Student")


def canvas_students(book: CanvasGradebook, students: Iterable[str],
                    roster: Roster | None) -> tuple[dict[str, int], list[Unmatched]]:
    """The Canvas row of each student: (student -> index in ``book.students``, the ones not
    matched). The key is the roster's identifier for the student's GitHub username (or, with
    no roster, the username itself); it is looked up in Canvas's ``ID``, ``SIS User ID``,
    ``SIS Login ID``, ``Integration ID`` and then ``Student`` (name) columns, case-insensitive,
    the first column where exactly one row has it winning. A key found in no row, in
    several rows of one column, or leading to a row another student also leads to, is
    unmatched: an import then never touches the wrong person."""
    rows: dict[str, int] = {}
    unmatched: list[Unmatched] = []
    for student in students:
        key = student
        if roster is not None:
            entry = roster.find(student)
            if entry is None:
                unmatched.append(Unmatched(student, "canvas", "not in the roster"))
                continue
            if not entry.identifier:
                unmatched.append(Unmatched(student, "canvas", "the roster has no identifier"))
                continue
            key = entry.identifier
        wanted = key.strip().casefold()
        hit, why = -1, f"{key} is in no Canvas row (ID, SIS User ID, SIS Login ID or name)"
        for column in CANVAS_KEYS:
            c = book.column(column)
            if c < 0:
                continue
            same = [i for i, row in enumerate(book.students) if row[c].strip().casefold() == wanted]
            if len(same) == 1:
                hit = same[0]
                break
            if len(same) > 1:
                why = f"{key} is in {len(same)} Canvas rows ({column})"
                break
        if hit < 0:
            unmatched.append(Unmatched(student, "canvas", why))
        else:
            rows[student] = hit
    targets: dict[int, list[str]] = {}
    for student, row in rows.items():
        targets.setdefault(row, []).append(student)
    for who in targets.values():
        if len(who) > 1:
            for student in who:
                del rows[student]
                unmatched.append(Unmatched(student, "canvas", "one Canvas student with "
                                           + ", ".join(w for w in who if w != student)))
    return rows, sorted(unmatched, key=lambda u: u.student)


def _canvas_from_gradebook(results: list[Result], path: Path, classroom: Classroom,
                           book: CanvasGradebook) -> ExportReport:
    grid = score_grid(results)
    latest = by_submission(results)
    columns, notes = canvas_columns(book, grid.assignments, classroom.canvas_columns)
    rows, unmatched = canvas_students(book, grid.students, classroom.roster)
    cells: dict[tuple[int, int], str] = {}
    for a, c in columns.items():
        possible = book.points_possible(c)
        if possible is None or possible <= 0:
            notes.append(f"{a}: the Canvas column {book.header[c]} has no points possible; "
                         "raw points are written")
        for student, row in rows.items():
            r = latest.get((student, a))
            if r is None or r.status != "graded" or not r.max_score:
                continue  # not graded: the cell stays as Canvas has it
            score = r.score if possible is None or possible <= 0 else \
                r.score / r.max_score * possible
            cells[(row, c)] = format_score(score)
    drop = book.read_only()
    keep = [i for i in range(len(book.header)) if i not in drop]
    out = [[book.header[i] for i in keep]]
    out += [[row[i] for i in keep] for row in book.leading]
    out += [[cells.get((n, i), row[i]) for i in keep] for n, row in enumerate(book.students)]
    write_csv(path, out)
    return ExportReport(unmatched, notes)


def write_canvas(results: Iterable[Result], path: Path,
                 classroom: Classroom | None = None) -> ExportReport:
    """Write a Canvas gradebook import CSV (format in the package docstring).

    With the course's Canvas gradebook export (``classroom.canvas``): that file again, its
    read-only columns left out, each matched student's course assignments written into the
    Canvas column that names them, scaled to its points possible; every other cell as Canvas
    gave it. Without it: ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``
    with the folder name in ``Student`` and ``SIS Login ID`` and one column per assignment
    (Canvas then asks to match students and columns by hand).
    """
    ordered = list(results)
    if classroom is not None and classroom.canvas is not None:
        return _canvas_from_gradebook(ordered, path, classroom, classroom.canvas)
    book = score_grid(ordered)
    rows = [[*CANVAS_COLUMNS, *book.assignments],
            [CANVAS_POINTS_ROW, "", "", "", "", *(book.points[a] for a in book.assignments)]]
    rows += [[student, "", "", student, "", *book.row(student)] for student in book.students]
    write_csv(path, rows)
    return ExportReport([], [])


MOODLE_KEYS = {"email": "Email address", "idnumber": "ID number"}


def write_moodle(results: Iterable[Result], path: Path,
                 classroom: Classroom | None = None) -> ExportReport:
    """Write a Moodle "Import grades from CSV file" CSV: the student's key and one column
    per assignment, one row per student (format in the package docstring). With a roster
    the key is the roster's identifier (``Email address`` when every identifier is one,
    else ``ID number``: the header says which, and is what "Identify user by" maps from),
    and only students on the roster are written; without one, ``username`` (the folder
    name). Not graded: an empty cell."""
    book = score_grid(results)
    roster = classroom.roster if classroom is not None else None
    if roster is None:
        write_csv(path, [[MOODLE_USER_COLUMN, *book.assignments]]
                  + [[s, *book.row(s)] for s in book.students])
        return ExportReport([], [])
    rows, unmatched = [], []
    for student in book.students:
        entry = roster.find(student)
        if entry is None or not entry.identifier:
            why = "not in the roster" if entry is None else "the roster has no identifier"
            unmatched.append(Unmatched(student, "moodle", why))
            continue
        rows.append([entry.identifier, *book.row(student)])
    write_csv(path, [[MOODLE_KEYS[roster.identifier_kind()], *book.assignments], *sorted(rows)])
    return ExportReport(unmatched, [])


UNMATCHED = "unmatched.csv"
UNMATCHED_COLUMNS = ("student", "export", "reason")


def write_unmatched(unmatched: list[Unmatched], path: Path) -> None:
    """Write ``unmatched.csv`` (columns :data:`UNMATCHED_COLUMNS`), or remove an old one
    when every student was matched."""
    if not unmatched:
        path.unlink(missing_ok=True)
        return
    write_csv(path, [UNMATCHED_COLUMNS, *([u.student, u.export, u.reason] for u in unmatched)])


EXPORT_WRITERS: dict[str, Callable[[Iterable[Result], Path, Classroom | None], ExportReport]] = {
    "canvas": write_canvas, "moodle": write_moodle}


def export_path(out: Path, name: str) -> Path:
    """Where export ``name`` (one of :data:`EXPORTS`) is written in ``out``."""
    return out / f"grades-{name}.csv"
