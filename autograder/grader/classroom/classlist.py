"""What the instructor brings to a grading run: the class roster, the LMS's gradebook export,
and hand-set scores.

``--roster FILE``
    The roster GitHub Classroom downloads (Classroom > Students > Download): the columns
    ``identifier, github_username, github_id, name``. ``identifier`` is whatever the
    instructor uploaded as the class list (a university e-mail, a student number, a name);
    ``github_username`` is empty for a learner who never accepted an assignment. The
    grader's student is the folder name, which in GitHub Classroom is the GitHub username.
``--canvas-gradebook FILE``
    Canvas's gradebook export (Grades > Export > Export Entire Gradebook): ``Student, ID,
    SIS User ID, SIS Login ID`` (sometimes ``Integration ID``), ``Section``, then one
    ``Title (id)`` column per assignment and the computed totals; a ``Points Possible`` row
    (the totals say ``(read only)`` there) and sometimes a ``Manual Posting`` row above it.
``--canvas-columns FILE``
    Optional: ``assignment, canvas_column`` rows naming the Canvas column (its full heading
    ``Title (id)``, or its title) for a course assignment whose Canvas title does not name it.
``--moodle-gradebook FILE``
    Moodle's gradebook export (Grades > Export > Plain text file): the user fields the site
    shows (``First name, Last name, ID number, Institution, Department, Email address``), one
    ``Kind: Title (Real)`` column per grade item (``Assignment: Lab 1 (Real)``), the totals
    (``Course total (Real)``) and ``Last downloaded from this course``; ``-`` for no grade.
``--overrides FILE``
    Hand-set scores: ``student, assignment, question, score, reason``. ``student`` is the
    GitHub username (or the roster's identifier); an empty ``question`` sets the whole
    assignment's score, otherwise that question's (the total is then the sum again).

Every reader raises :class:`ValueError` with a message naming the file, the line and what is
wrong; nothing is guessed.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grader.classroom.lms_file import LmsFile, read_lms_file
from autograder.grader.result import Result

ROSTER_COLUMNS = ("identifier", "github_username", "github_id", "name")
OVERRIDE_COLUMNS = ("student", "assignment", "question", "score", "reason")
COLUMN_MAP_COLUMNS = ("assignment", "canvas_column")
CANVAS_IDENTITY = ("Student", "LastName", "FirstName", "ID", "SIS User ID", "SIS Login ID",
                   "Integration ID", "Section")
CANVAS_POINTS_ROW = "Points Possible"
READ_ONLY = "(read only)"
CANVAS_TEST_NAMES = ("Student, Test", "Test Student")  # Student View's learner
CANVAS_TEST_LOGIN = re.compile(r"[0-9a-f]{40}")  # the SIS login Canvas makes for it
_CANVAS_TITLE = re.compile(r"^(?P<title>.*?)\s*\((?P<id>\d+)\)\s*$")


def _read_csv(path: Path, what: str) -> list[tuple[int, list[str]]]:
    """(the line a record starts on, its cells) for every record of the CSV at ``path``
    (UTF-8, a byte-order mark allowed: Excel and Canvas write one)."""
    source = read_lms_file(path, what)
    return [(r.line, r.values) for r in source.records]


def _records(path: Path, what: str, columns: tuple[str, ...],
             required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """(line, row by column) for every non-blank row of a CSV whose header names
    ``required`` (other known ``columns`` may be absent: they read as "")."""
    rows = _read_csv(path, what)
    if not rows:
        raise ValueError(f"{what} {path}: empty file; expected the header {','.join(columns)}")
    header = [h.strip() for h in rows[0][1]]
    missing = [c for c in required if c not in header]
    if missing:
        raise ValueError(f"{what} {path}: no {', '.join(missing)} column (the header must "
                         f"name {','.join(columns)})")
    out = []
    for line, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        extra = [cell for cell in row[len(header):] if cell.strip()]
        if extra:
            raise ValueError(f"{what} {path}: line {line} has {len(row)} cells, the header "
                             f"{len(header)} (a comma inside a value? Put the value in "
                             f"double quotes: \"{extra[0].strip()}...\")")
        cells = dict(zip(header, (cell.strip() for cell in row), strict=False))
        out.append((line, {c: cells.get(c, "") for c in columns}))
    return out


# ------------------------------------------------------------------------------- roster

@dataclass(frozen=True)
class RosterEntry:
    """One learner of the GitHub Classroom roster."""

    identifier: str
    github_username: str
    github_id: str = ""
    name: str = ""


@dataclass(frozen=True)
class Roster:
    """The roster, looked up by GitHub username (case-insensitive, as GitHub's are)."""

    entries: list[RosterEntry]

    def find(self, student: str) -> RosterEntry | None:
        """The entry whose GitHub username is ``student`` (the folder name), or None."""
        key = student.casefold()
        return next((e for e in self.entries if e.github_username.casefold() == key), None)

    def by_identifier(self, identifier: str) -> RosterEntry | None:
        """The linked entry whose identifier is ``identifier`` (case-insensitive), or None."""
        key = identifier.casefold()
        return next((e for e in self.entries
                     if e.github_username and e.identifier.casefold() == key), None)

    def identifier_kind(self) -> str:
        """``"email"`` when every linked identifier is an e-mail address, else ``"idnumber"``."""
        linked = [e.identifier for e in self.entries if e.github_username]
        if linked and all(_looks_like_email(i) for i in linked):
            return "email"
        return "idnumber"


def _looks_like_email(text: str) -> bool:
    return re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", text) is not None


def read_roster(path: Path) -> Roster:
    """The GitHub Classroom roster at ``path``.

    Raises:
        ValueError: not a roster (no ``identifier`` or ``github_username`` column), or two
            rows linked to one GitHub username, or one identifier twice.
    """
    entries = []
    seen_user: dict[str, int] = {}
    seen_id: dict[str, int] = {}
    for line, row in _records(path, "roster", ROSTER_COLUMNS, ("identifier", "github_username")):
        entry = RosterEntry(row["identifier"], row["github_username"], row["github_id"],
                            row["name"])
        for value, what, seen in ((entry.github_username, "GitHub user", seen_user),
                                  (entry.identifier, "identifier", seen_id)):
            if not value:
                continue
            if value.casefold() in seen:
                raise ValueError(f"roster {path}: line {line}: {what} {value} is also on line "
                                 f"{seen[value.casefold()]}")
            seen[value.casefold()] = line
        entries.append(entry)
    return Roster(entries)


# --------------------------------------------------------------------- Canvas gradebook

@dataclass(frozen=True)
class CanvasGradebook:
    """A Canvas gradebook export, kept as Canvas wrote it.

    ``header`` and ``leading`` (the rows above the students: ``Points Possible`` and any
    ``Manual Posting`` row) are the file's own; ``students`` are the student rows, each as
    long as the header. ``source`` is the file itself (:mod:`.lms_file`), ``rows`` the record
    of ``source`` each student row is, so an import is that file with only its cells changed.
    """

    header: list[str]
    leading: list[list[str]]
    students: list[list[str]]
    identity: list[str] = field(default_factory=list)  # the identity columns present
    source: LmsFile | None = None
    rows: list[int] = field(default_factory=list)  # students[i] is source.records[rows[i]]

    def column(self, name: str) -> int:
        """The index of column ``name`` (-1 when absent)."""
        return self.header.index(name) if name in self.header else -1

    def name(self, row: list[str]) -> str:
        """The learner's name as the export gives it: ``Student``, or ``LastName,
        FirstName`` where Canvas split the name into two columns."""
        if self.column("Student") >= 0:
            return row[self.column("Student")].strip()
        last, first = self.column("LastName"), self.column("FirstName")
        return ", ".join(row[c].strip() for c in (last, first) if c >= 0 and row[c].strip())

    def is_test_student(self, row: list[str]) -> bool:
        """Is ``row`` Canvas's Test Student (Student View)? Canvas names it ``Student, Test``
        (``Test Student``) and gives it no SIS User ID; its SIS Login ID is empty or the
        40-hex-digit login Canvas makes for it."""
        sis_user = self.column("SIS User ID")
        login = self.column("SIS Login ID")
        if sis_user >= 0 and row[sis_user].strip():
            return False
        made = login >= 0 and CANVAS_TEST_LOGIN.fullmatch(row[login].strip()) is not None
        bare = login < 0 or not row[login].strip()
        return made or (bare and self.name(row) in CANVAS_TEST_NAMES)

    def decimal_comma(self) -> bool:
        """Does the export write numbers with a decimal comma (``20,00``), as Canvas does
        with semicolons as separators?"""
        return any(re.fullmatch(r"\d+,\d+", cell.strip()) for cell in self.points_row())

    def points_row(self) -> list[str]:
        """The ``Points Possible`` row ([] when the export has none)."""
        return next((r for r in self.leading if r and r[0].strip() == CANVAS_POINTS_ROW), [])

    def read_only(self) -> set[int]:
        """Columns Canvas computes (``(read only)`` in the points row): an import ignores
        them."""
        points = self.points_row()
        return {i for i, cell in enumerate(points) if READ_ONLY in cell.lower()}

    def assignment_columns(self) -> dict[int, str]:
        """Column index -> title, for the ``Title (id)`` columns Canvas grades (read-only
        totals excluded)."""
        skip = self.read_only()
        found = {}
        for i, heading in enumerate(self.header):
            match = _CANVAS_TITLE.match(heading)
            if i not in skip and heading not in self.identity and match:
                found[i] = match["title"]
        return found

    def points_possible(self, column: int) -> float | None:
        """Column ``column``'s points possible, or None when the export does not say."""
        points = self.points_row()
        try:
            value = float(points[column].strip().replace(",", "."))
        except (IndexError, ValueError):
            return None
        return value if math.isfinite(value) else None


def read_canvas_gradebook(path: Path) -> CanvasGradebook:
    """The Canvas gradebook export at ``path``: commas or semicolons as separators, the
    learner's name in ``Student`` or split into ``LastName`` and ``FirstName``.

    Raises:
        ValueError: not a Canvas export (the name columns, then ``ID``, must come first, as
            Canvas writes them), or no student rows, or a row longer than the header.
    """
    source = read_lms_file(path, "Canvas gradebook")
    rows = source.rows()
    if not rows:
        raise ValueError(f"Canvas gradebook {path}: empty file")
    header = [h.strip() for h in rows[0]]
    if (header[:2] != ["Student", "ID"] and header[:3] != ["LastName", "FirstName", "ID"]
            or "Section" not in header):
        raise ValueError(f"Canvas gradebook {path}: expected Canvas's export (columns Student "
                         f"(or LastName, FirstName), ID, SIS User ID, SIS Login ID, Section, "
                         f"then assignments); the header starts {', '.join(header[:5])}")
    identity = [c for c in CANVAS_IDENTITY if c in header]
    user = header.index("ID")
    leading, students, where = [], [], []
    for n, row in enumerate(rows[1:], start=1):
        line = source.records[n].line
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise ValueError(f"Canvas gradebook {path}: line {line} has {len(row)} cells, the "
                             f"header {len(header)}")
        row = row + [""] * (len(header) - len(row))
        first = row[0].strip()
        # Above the students Canvas writes rows with no user id: "Points Possible", and
        # "Manual Posting" (or "Muted" in older exports) for assignments posted by hand.
        if not students and not row[user].strip() and (first == CANVAS_POINTS_ROW
                                                       or not first):
            leading.append(row)
        else:
            students.append(row)
            where.append(n)
    if not students:
        raise ValueError(f"Canvas gradebook {path}: no student rows")
    return CanvasGradebook(header, leading, students, identity, source, where)


def read_column_map(path: Path) -> dict[str, str]:
    """``assignment -> Canvas column`` (a heading ``Title (id)`` or a title) from ``path``.

    Raises:
        ValueError: no ``assignment`` or ``canvas_column`` column, or an assignment twice.
    """
    mapping: dict[str, str] = {}
    for line, row in _records(path, "Canvas column map", COLUMN_MAP_COLUMNS, COLUMN_MAP_COLUMNS):
        if row["assignment"] in mapping:
            raise ValueError(f"Canvas column map {path}: line {line}: assignment "
                             f"{row['assignment']} is mapped twice")
        if not row["assignment"] or not row["canvas_column"]:
            raise ValueError(f"Canvas column map {path}: line {line}: both assignment and "
                             "canvas_column are needed")
        mapping[row["assignment"]] = row["canvas_column"]
    return mapping


# ---------------------------------------------------------------------- Moodle gradebook

MOODLE_USER_FIELDS = ("First name", "Last name", "Surname", "ID number", "Institution",
                      "Department", "Email address", "Username", "Phone", "Mobile phone",
                      "City/town", "Country", "Address")
MOODLE_KEYS = ("Email address", "ID number", "Username")
MOODLE_TIME = "Last downloaded from this course"
# A grade item's heading: "Assignment: Lab 1 (Real)" (the module's name, the item's, and how
# the grade is shown); the totals ("Course total (Real)") have no module name.
_MOODLE_ITEM = re.compile(r"^(?P<kind>[^:]+):\s*(?P<title>.*?)\s*\((?P<shown>[^()]*)\)\s*$")


@dataclass(frozen=True)
class MoodleGradebook:
    """A Moodle gradebook export (plain text), kept as Moodle wrote it (``source``; student
    row ``i`` is its record ``rows[i]``)."""

    header: list[str]
    students: list[list[str]]
    source: LmsFile | None = None
    rows: list[int] = field(default_factory=list)

    def column(self, name: str) -> int:
        """The index of column ``name`` (-1 when absent)."""
        return self.header.index(name) if name in self.header else -1

    def identity(self) -> list[int]:
        """The user-field columns (and the export time), kept in an import."""
        return [i for i, h in enumerate(self.header) if h in MOODLE_USER_FIELDS
                or h == MOODLE_TIME]

    def item_columns(self, shown: str = "real") -> dict[int, str]:
        """Column index -> grade item title, for the items shown as ``shown`` (``(Real)``:
        in points)."""
        found = {}
        for i, heading in enumerate(self.header):
            match = _MOODLE_ITEM.match(heading)
            if match and match["shown"].strip().casefold() == shown:
                found[i] = match["title"]
        return found

    def maximum(self, column: int) -> float | None:
        """The maximum of the item in ``column`` (a ``(Real)`` column), where the export
        says it: the same item's ``(Percentage)`` column beside a grade above 0 gives it
        (grade / percentage); None when no row does, or the rows disagree."""
        heading = _MOODLE_ITEM.match(self.header[column])
        if heading is None:
            return None
        twin = f"{heading['kind']}: {heading['title']} (Percentage)"
        other = self.column(twin)
        if other < 0:
            return None
        found = set()
        for row in self.students:
            try:
                real = float(row[column].strip())
                share = float(row[other].strip().rstrip("%").strip())
            except ValueError:
                continue
            if real > 0 and share > 0:
                found.add(round(real * 100 / share, 1))
        return found.pop() if len(found) == 1 else None


def read_moodle_gradebook(path: Path) -> MoodleGradebook:
    """The Moodle gradebook export at ``path``.

    Raises:
        ValueError: no user column to match learners by (``Email address``, ``ID number`` or
            ``Username``), no student rows, or a row longer than the header.
    """
    source = read_lms_file(path, "Moodle gradebook")
    rows = source.rows()
    if not rows:
        raise ValueError(f"Moodle gradebook {path}: empty file")
    header = [h.strip() for h in rows[0]]
    if not any(k in header for k in MOODLE_KEYS):
        raise ValueError(f"Moodle gradebook {path}: expected Moodle's export (Grades > Export > "
                         f"Plain text file) with an {' or '.join(MOODLE_KEYS)} column; the "
                         f"header starts {', '.join(header[:5])}")
    students, where = [], []
    for n, row in enumerate(rows[1:], start=1):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise ValueError(f"Moodle gradebook {path}: line {source.records[n].line} has "
                             f"{len(row)} cells, the header {len(header)}")
        students.append(row + [""] * (len(header) - len(row)))
        where.append(n)
    if not students:
        raise ValueError(f"Moodle gradebook {path}: no student rows")
    return MoodleGradebook(header, students, source, where)


# ---------------------------------------------------------------------------- overrides

@dataclass(frozen=True)
class Override:
    """A score the instructor set by hand (question "" = the whole assignment)."""

    student: str
    assignment: str
    question: str
    score: float
    reason: str
    line: int = 0


def read_overrides(path: Path) -> list[Override]:
    """The hand-set scores in ``path`` (columns :data:`OVERRIDE_COLUMNS`).

    Raises:
        ValueError: a missing column, a score that is not a finite number >= 0, an empty
            student, assignment or reason, or one (student, assignment, question) twice.
    """
    found: list[Override] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, row in _records(path, "overrides", OVERRIDE_COLUMNS, OVERRIDE_COLUMNS):
        where = f"overrides {path}: line {line}"
        for column in ("student", "assignment", "reason"):
            if not row[column]:
                raise ValueError(f"{where}: the {column} is empty (every override says whose, "
                                 "which assignment, and why)")
        try:
            score = float(row["score"])
        except ValueError:
            raise ValueError(f"{where}: the score {row['score']!r} is not a number") from None
        if not math.isfinite(score) or score < 0:
            raise ValueError(f"{where}: the score {row['score']} must be a number >= 0")
        key = (row["student"].casefold(), row["assignment"], row["question"])
        if key in seen:
            raise ValueError(f"{where}: the same student, assignment and question as line "
                             f"{seen[key]}")
        seen[key] = line
        found.append(Override(row["student"], row["assignment"], row["question"], score,
                              row["reason"], line))
    return found


@dataclass(frozen=True)
class Applied:
    """An override as applied: the score before and after, and why."""

    student: str
    assignment: str
    question: str  # "" for the whole assignment
    old: float | None  # None: there was no graded score
    new: float
    reason: str


def _find(results: list[Result], student: str, assignment: str) -> int:
    key = student.casefold()
    return next((i for i, r in enumerate(results)
                 if r.student.casefold() == key and r.assignment == assignment), -1)


def apply_overrides(results: Iterable[Result], overrides: Iterable[Override],
                    roster: Roster | None = None) -> tuple[list[Result], list[Applied], list[str]]:
    """``results`` with the hand-set scores of ``overrides`` on top: (the results, the
    overrides applied, the ones that could not be applied and why).

    The results given are not changed (``result.json`` keeps what the grader found). A
    question's override sets that question's score and the total is summed again; a whole
    assignment's override sets the total and marks the submission graded (an invalid or
    missing submission, such as work handed in by e-mail, then gets a grade, out of the
    points other submissions of that assignment have). A student is named by GitHub
    username or by the roster's identifier.
    """
    out = [copy.deepcopy(r) for r in results]
    applied: list[Applied] = []
    problems: list[str] = []
    for o in sorted(overrides, key=lambda o: (o.student.casefold(), o.assignment, o.question)):
        label = f"{o.student} · {o.assignment}" + (f" · {o.question}" if o.question else "")
        student = o.student
        if roster is not None and _find(out, student, o.assignment) < 0:
            entry = roster.by_identifier(student) or roster.find(student)
            student = entry.github_username if entry else student
        i = _find(out, student, o.assignment)
        if o.question:
            if i < 0 or out[i].status != "graded":
                problems.append(f"{label}: no graded submission has this question; set the "
                                "whole assignment's score instead (an empty question)")
                continue
            r = out[i]
            q = next((q for q in r.questions if q.id == o.question), None)
            if q is None:
                problems.append(f"{label}: no such question (the submission has "
                                f"{', '.join(q.id for q in r.questions) or 'none'})")
                continue
            applied.append(Applied(r.student, r.assignment, q.id, q.score, o.score, o.reason))
            q.score = o.score  # its message stays: what the grader found wrong
            if q.score >= q.max_score:
                q.status = "passed"
            r.score = sum(q.score for q in r.questions)
            continue
        peers = [r.max_score for r in out if r.assignment == o.assignment and r.max_score]
        if i < 0 or not out[i].max_score:  # no submission, or one never graded
            if not peers:
                problems.append(f"{label}: no graded submission of {o.assignment} says its "
                                "points; the override is not applied")
                continue
            if i < 0:
                out.append(Result(student, o.assignment, ""))
                i = len(out) - 1
            out[i].max_score = max(peers)
        r = out[i]
        old = r.score if r.status == "graded" else None
        applied.append(Applied(r.student, r.assignment, "", old, o.score, o.reason))
        r.score, r.status = o.score, "graded"
        r.message = f"score set by hand: {o.reason}"
    return out, applied, problems


@dataclass(frozen=True)
class Classroom:
    """Everything the instructor gave beyond the submissions (each part optional)."""

    roster: Roster | None = None
    canvas: CanvasGradebook | None = None
    canvas_columns: dict[str, str] = field(default_factory=dict)
    applied: list[Applied] = field(default_factory=list)
    override_problems: list[str] = field(default_factory=list)
    moodle: MoodleGradebook | None = None
    # the term's decisions (autograder.grader.classroom.term.Decision), by (student, assignment)
    decisions: dict = field(default_factory=dict)
    replace_scores: bool = False  # write over scores already in the LMS (--replace-lms-scores)
    replace_excused: bool = False  # write over EX in the LMS (--replace-lms-excused)
    moodle_maximum: dict[str, float] = field(default_factory=dict)  # assignment -> maximum
    warnings: list[str] = field(default_factory=list)  # for summary.md (LMS late policies)
