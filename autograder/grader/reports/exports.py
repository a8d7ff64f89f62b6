"""Gradebook imports for learning-management systems: Canvas and Moodle (see the package's
docstring for the formats)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.core.renames import lms_title_note
from autograder.grader.classroom.classlist import (
    MOODLE_KEYS,
    CanvasGradebook,
    Classroom,
    MoodleGradebook,
    Roster,
)
from autograder.grader.classroom.term import Decision, decide
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


EXCUSED = "EX"  # Canvas's mark for excused work (its import takes it too)


def decisions_of(results: Iterable[Result], classroom: Classroom | None
                 ) -> dict[tuple[str, str], Decision]:
    """The term's decisions :func:`~autograder.grader.classroom.decisions.settle` made, or,
    for reports written without them, the grader's: a graded submission's score, nothing
    for the rest."""
    if classroom is not None and classroom.decisions:
        return classroom.decisions
    from datetime import UTC, datetime

    latest = list(by_submission(results).values())
    names = {r.assignment for r in latest if r.max_score > 0}
    return decide([r for r in latest if r.assignment in names], None, datetime.now(UTC),
                  None, names)


def score_grid(results: Iterable[Result], classroom: Classroom | None = None,
               excused: str = "") -> ScoreGrid:
    """The grid the exports write: every learner and assignment the decisions cover
    (sorted), a cell where a decision writes a score (``excused`` where it excuses, when
    given); no cell (leave the LMS's) for the rest: not submitted before the due time, not
    graded (invalid, error). An assignment with no points known gets no column."""
    found = decisions_of(results, classroom)
    points: dict[str, float] = {}
    for (_, assignment), d in found.items():
        points[assignment] = max(points.get(assignment, 0.0), d.max_score)
    points = {a: p for a, p in points.items() if p > 0}
    cells = {}
    for key, d in found.items():
        if key[1] not in points:
            continue
        if d.excused and excused:
            cells[key] = excused
        elif d.score is not None and not d.excused:
            cells[key] = format_score(d.score)
    return ScoreGrid(
        students=sorted({s for s, _ in found}),
        assignments=sorted(points),
        cells=cells,
        points={a: format_score(p) for a, p in points.items()},
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
    kept: list[Kept] = field(default_factory=list)  # LMS cells not written over


@dataclass(frozen=True)
class Kept:
    """A cell of the LMS's export kept as it was although the grader would write another
    value there (``--replace-lms-scores`` / ``--replace-lms-excused`` write over it)."""

    student: str
    export: str
    assignment: str
    lms: str  # what the LMS has
    grader: str  # what the grader would have written
    reason: str


def settle_cell(existing: str, wanted: str | None, classroom: Classroom | None
                ) -> tuple[str, str]:
    """The cell to write where the LMS has ``existing`` and the decision says ``wanted``
    (None: leave it): (the cell, why the LMS's value was kept instead, or ""). ``EX`` is
    kept unless the instructor asked (``replace_excused``); a score unless ``replace_scores``;
    an equal value keeps the LMS's own spelling (``12.00``)."""
    have = existing.strip()
    if wanted is None or have == wanted:
        return existing, ""
    if have in ("", "-"):
        return wanted, ""
    if have.upper() == EXCUSED:
        if classroom is not None and classroom.replace_excused:
            return wanted, ""
        return existing, "excused in the LMS (--replace-lms-excused writes over it)"
    try:
        if abs(float(have.replace(",", ".")) - float(wanted.replace(",", "."))) < 5e-7:
            return existing, ""
    except ValueError:
        pass
    if classroom is not None and classroom.replace_scores:
        return wanted, ""
    return existing, "a score is already in the LMS (--replace-lms-scores writes over it)"


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
                old = lms_title_note(a, graded.values(), _names)
                notes.append(f"{a}: no Canvas assignment's title names it; "
                             + (f"{old}; " if old else "create the assignment in Canvas and "
                                "export the gradebook again, or map it (--canvas-columns); ")
                             + "its scores are not exported")
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
        hit, why = _one_row(book, CANVAS_KEYS, wanted, f"{key} is in", "Canvas")
        if hit < 0 and why.endswith("no Canvas row"):
            why = f"{key} is in no Canvas row (ID, SIS User ID, SIS Login ID or name)"
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


def _placed(results: list[Result], found: dict[tuple[str, str], Decision]) -> list[str]:
    """The learners an export must place: those with a result, and those a decision writes
    a value (or EX) for (rostered learners with nothing submitted, past the close)."""
    have = {r.student for r in results}
    return sorted(have | {s for (s, _), d in found.items() if d.score is not None or d.excused})


def _canvas_from_gradebook(results: list[Result], path: Path, classroom: Classroom,
                           book: CanvasGradebook) -> ExportReport:
    """Canvas's own export again, with only the grader's cells changed (every other cell,
    row, header, blank and quoting as Canvas wrote it; :mod:`.lms_file`); Canvas's Test
    Student's row left out."""
    grid = score_grid(results, classroom, EXCUSED)
    found = decisions_of(results, classroom)
    columns, notes = canvas_columns(book, grid.assignments, classroom.canvas_columns)
    rows, unmatched = canvas_students(book, _placed(results, found), classroom.roster)
    test = {n for n, row in enumerate(book.students) if book.is_test_student(row)}
    for student in [s for s, n in rows.items() if n in test]:
        del rows[student]
        unmatched.append(Unmatched(student, "canvas", "Canvas's Test Student (Student View), "
                                   "not a learner: no grade written"))
    comma = book.decimal_comma()
    cells: dict[tuple[int, int], str] = {}
    kept: list[Kept] = []
    for a, c in columns.items():
        possible = book.points_possible(c)
        if possible is None or possible <= 0:
            notes.append(f"{a}: the Canvas column {book.header[c]} has no points possible; "
                         "raw points are written")
        for student, row in rows.items():
            d = found.get((student, a))
            if d is None:
                continue
            wanted = grid.cells.get((student, a))
            if wanted is not None and wanted != EXCUSED and possible and possible > 0:
                wanted = format_score(float(wanted) / d.max_score * possible
                                      if d.max_score else float(wanted))
            if wanted is not None and comma:
                wanted = wanted.replace(".", ",")
            existing = book.students[row][c]
            cell, why = settle_cell(existing, wanted, classroom)
            if why:
                kept.append(Kept(student, "canvas", a, existing.strip(), wanted or "", why))
            if cell != existing:
                cells[(book.rows[row], c)] = cell
    assert book.source is not None
    keep = [n for n in range(len(book.source.records))
            if n not in {book.rows[t] for t in test}]
    book.source.write(path, cells, keep_rows=keep)
    return ExportReport(sorted(unmatched, key=lambda u: u.student), notes, kept)


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
    book = score_grid(ordered, classroom, EXCUSED)
    rows = [[*CANVAS_COLUMNS, *book.assignments],
            [CANVAS_POINTS_ROW, "", "", "", "", *(book.points[a] for a in book.assignments)]]
    rows += [[student, "", "", student, "", *book.row(student)] for student in book.students]
    write_csv(path, rows)
    return ExportReport([], [])


MOODLE_HEADINGS = {"email": "Email address", "idnumber": "ID number"}


def moodle_maximum(book: MoodleGradebook, column: int, assignment: str,
                   classroom: Classroom) -> float | None:
    """The maximum grade of the Moodle item in ``column``: the one the instructor or the
    grading worksheet gave (``classroom.moodle_maximum``), else the one the export shows
    (its ``(Percentage)`` column), else None."""
    given = classroom.moodle_maximum.get(assignment)
    return given if given is not None else book.maximum(column)


def _moodle_from_gradebook(results: list[Result], path: Path, classroom: Classroom,
                           book: MoodleGradebook) -> ExportReport:
    """Moodle's own export again: its user fields and export time, the grade items of this
    run's assignments (found by title, as in Canvas), each matched learner's cell decided
    (:func:`settle_cell`) and scaled to the item's maximum grade, every other cell as Moodle
    wrote it (:mod:`.lms_file`). A learner is matched by the roster's identifier (or the
    username) in ``Email address``, ``ID number`` or ``Username``, case-insensitively, and
    written as Moodle spells it. An item whose maximum is not known is left out (a note
    says how to give it)."""
    grid = score_grid(results, classroom)
    found = decisions_of(results, classroom)
    items = book.item_columns()
    columns: dict[str, int] = {}
    top: dict[str, float] = {}
    notes: list[str] = []
    for a in grid.assignments:
        hits = [i for i, title in items.items() if _names(title, a)]
        if len(hits) != 1:
            old = "" if hits else lms_title_note(a, items.values(), _names)
            notes.append(f"{a}: {'no' if not hits else 'more than one'} Moodle grade item "
                         f"(Real) names it; {old + '; ' if old else ''}its scores are not in "
                         "the Moodle import")
            continue
        maximum = moodle_maximum(book, hits[0], a, classroom)
        if maximum is None or maximum <= 0:
            notes.append(f"{a}: refused: the maximum grade of Moodle's {book.header[hits[0]]} "
                         "is not known, and Moodle reads points on its own scale; unpack the "
                         "submissions with the grading worksheet (its Maximum Grade), or give "
                         f"--moodle-maximum {a}=POINTS; its scores are not in the Moodle "
                         "import")
            continue
        columns[a], top[a] = hits[0], maximum
    unmatched: list[Unmatched] = []
    rows: dict[str, int] = {}
    for student in _placed(results, found):
        entry = classroom.roster.find(student) if classroom.roster is not None else None
        if classroom.roster is not None and (entry is None or not entry.identifier):
            why = "not in the roster" if entry is None else "the roster has no identifier"
            unmatched.append(Unmatched(student, "moodle", why))
            continue
        wanted = (entry.identifier if entry is not None else student).strip().casefold()
        hit, why = _one_row(book, MOODLE_KEYS, wanted, f"{wanted} is in", "Moodle")
        if hit < 0 and why.endswith("no Moodle row"):
            why = f"{wanted} is in no Moodle row ({', '.join(MOODLE_KEYS)})"
        if hit < 0:
            unmatched.append(Unmatched(student, "moodle", why))
        elif hit in rows.values():
            other = next(s for s, n in rows.items() if n == hit)
            unmatched.append(Unmatched(student, "moodle", f"one Moodle user with {other}"))
        else:
            rows[student] = hit
    cells: dict[tuple[int, int], str] = {}
    kept: list[Kept] = []
    for a, c in columns.items():
        for student, row in rows.items():
            d = found.get((student, a))
            if d is None:
                continue
            existing = book.students[row][c]
            wanted = grid.cells.get((student, a))
            if wanted is not None and d.max_score:
                wanted = format_score(float(wanted) / d.max_score * top[a])
            cell, why = settle_cell(existing, wanted, classroom)
            if why:
                kept.append(Kept(student, "moodle", a, existing.strip(), wanted or "", why))
            if cell != existing:
                cells[(book.rows[row], c)] = cell
    assert book.source is not None
    keep = sorted(set(book.identity()) | set(columns.values()))
    book.source.write(path, cells, keep_columns=keep)
    return ExportReport(sorted(unmatched, key=lambda u: u.student), notes, kept)


def write_moodle(results: Iterable[Result], path: Path,
                 classroom: Classroom | None = None) -> ExportReport:
    """Write a Moodle "Import grades from CSV file" CSV (format in the package docstring).

    With the course's Moodle gradebook export (``classroom.moodle``): that file again, its
    user fields, export time and this run's grade items (:func:`_moodle_from_gradebook`).
    Otherwise: the student's key and one column per assignment, one row per student. With a
    roster the key is the roster's identifier (``Email address`` when every identifier is
    one, else ``ID number``: the header says which, and is what "Identify user by" maps
    from), and only students on the roster are written; without one, ``username`` (the
    folder name). Left by the decision: an empty cell, which Moodle's import reads as "no
    grade" and so clears a grade Moodle has: the report says so (give Moodle's export)."""
    ordered = list(results)
    if classroom is not None and classroom.moodle is not None:
        return _moodle_from_gradebook(ordered, path, classroom, classroom.moodle)
    book = score_grid(ordered, classroom)
    found = decisions_of(ordered, classroom)
    blind = sorted(k for k, d in found.items() if d.state == "missing" and d.score is not None)
    if blind:  # points for missing work, written over whatever Moodle holds: refused
        path.unlink(missing_ok=True)
        return ExportReport([], [f"grades-moodle.csv refused: it would write the term's missing "
                                 f"points for {len(blind)} learner(s) (first {blind[0][0]}, "
                                 f"{blind[0][1]}) over any score typed into Moodle; give "
                                 "Moodle's own export (--moodle-gradebook)"])
    students = [s for s in book.students if s in _placed(ordered, found)]

    def row(student: str) -> list[str]:
        return book.row(student)

    empty = sum(not cell for s in students for cell in row(s))
    notes = [f"grades-moodle.csv has {empty} empty cell(s) (not graded, not due, excused): "
             "Moodle's import clears any grade Moodle holds there; give Moodle's own export "
             "(--moodle-gradebook) to keep them"] if empty else []
    roster = classroom.roster if classroom is not None else None
    if roster is None:
        write_csv(path, [[MOODLE_USER_COLUMN, *book.assignments]]
                  + [[s, *row(s)] for s in students])
        return ExportReport([], notes)
    rows, unmatched = [], []
    for student in students:
        entry = roster.find(student)
        if entry is None or not entry.identifier:
            why = "not in the roster" if entry is None else "the roster has no identifier"
            unmatched.append(Unmatched(student, "moodle", why))
            continue
        rows.append([entry.identifier, *row(student)])
    write_csv(path, [[MOODLE_HEADINGS[roster.identifier_kind()], *book.assignments],
                     *sorted(rows)])
    return ExportReport(unmatched, notes)


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


KEPT = "kept-in-lms.csv"
KEPT_COLUMNS = ("student", "export", "assignment", "lms", "grader", "reason")


def write_kept(kept: list[Kept], path: Path) -> None:
    """Write ``kept-in-lms.csv`` (columns :data:`KEPT_COLUMNS`): every LMS cell an export
    kept instead of writing over it; removed when there is none."""
    if not kept:
        path.unlink(missing_ok=True)
        return
    write_csv(path, [KEPT_COLUMNS, *([k.student, k.export, k.assignment, k.lms, k.grader,
                                      k.reason] for k in kept)])


def export_path(out: Path, name: str) -> Path:
    """Where export ``name`` (one of :data:`EXPORTS`) is written in ``out``."""
    return out / f"grades-{name}.csv"


def _one_row(book, columns, wanted: str, said: str, lms: str) -> tuple[int, str]:
    """The one row of ``book`` whose first column of ``columns`` that holds ``wanted``
    (casefolded) holds it in exactly one row: ``(row, "")``; else ``(-1, why)``, where why
    names the column with several rows, or ends in ``no <lms> row``."""
    for column in columns:
        c = book.column(column)
        if c < 0:
            continue
        same = [i for i, row in enumerate(book.students) if row[c].strip().casefold() == wanted]
        if len(same) == 1:
            return same[0], ""
        if len(same) > 1:
            return -1, f"{said} {len(same)} {lms} rows ({column})"
    return -1, f"{said} no {lms} row"
