"""The term's state: each assignment's schedule, and what the gradebook should say for each
learner and assignment at a given time (``--term FILE``, a TOML file the instructor keeps).

The file (``term.toml``; book/grading.md shows a whole one)::

    [assignment.01_arrays]
    released = 2026-09-01T09:00:00+02:00
    due = 2026-09-14T23:59:00+02:00
    closed = 2026-09-21T23:59:00+02:00   # optional: late work accepted until then
    late_penalty = 10                     # optional: percent of the points per day late
    missing = 0                           # optional: points for work not submitted once closed

    [[extension]]                         # one learner's own due (and closed) time
    student = "ada-l"                     # GitHub username, or the roster's identifier
    assignment = "01_arrays"
    due = 2026-09-18T23:59:00+02:00

    [[excused]]
    student = "cy.ito@uni.example"
    assignment = "01_arrays"
    reason = "medical certificate"

    [[submitted]]                         # when work came in outside the repositories
    student = "bochen"
    assignment = "01_arrays"
    at = 2026-09-16T10:00:00+02:00

Times need a UTC offset (``Z`` for UTC). Every problem raises :class:`ValueError` naming the
file and the line.

:func:`decide` gives one :class:`Decision` per learner and assignment: the score the LMS
exports write (``None``: leave the LMS cell as it is), whether it is excused, and a note for
the learner and the instructor. A notebook left as released (status ``not_submitted``) or no
notebook at all is never a 0 before the due time: the cell is left; after it (once the
assignment is closed, when it has a ``closed`` time) ``missing`` is written, or the cell is
left when the file gives no ``missing``.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from autograder.core.renames import refuse_old_name
from autograder.grader.classroom.classlist import Roster
from autograder.grader.result import Result

SCHEDULE_KEYS = {"released", "due", "closed", "late_penalty", "missing"}
TABLES = {"assignment", "extension", "excused", "submitted"}
NOT_SUBMITTED = "not_submitted"  # grading's status for a notebook left as released


@dataclass(frozen=True)
class Schedule:
    """One assignment's schedule."""

    assignment: str
    due: datetime
    released: datetime | None = None
    closed: datetime | None = None  # late work accepted until then (None: not after due)
    late_penalty: float = 0.0  # percent of the points off per started day late
    missing: float | None = None  # points for work not submitted once closed (None: leave)


@dataclass(frozen=True)
class Term:
    """The term file, read. Per-learner entries are keyed by (name casefolded, assignment),
    the name a GitHub username or a roster identifier."""

    path: Path
    assignments: dict[str, Schedule]
    extensions: dict[tuple[str, str], tuple[datetime, datetime | None]] = field(
        default_factory=dict)  # (due, closed)
    excused: dict[tuple[str, str], str] = field(default_factory=dict)  # -> reason
    submitted: dict[tuple[str, str], datetime] = field(default_factory=dict)
    lines: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (kind, *key) -> line


def _line_of(text: str, table: str, index: int) -> int:
    """The line where the ``index``-th ``[[table]]`` (or ``[table]``, a name) starts."""
    pattern = re.compile(rf"^[ \t]*\[\[\s*{re.escape(table)}\s*\]\]" if index >= 0 else
                         rf"^[ \t]*\[\s*{re.escape(table)}\s*\]", re.MULTILINE)
    hits = list(pattern.finditer(text))
    spot = hits[max(index, 0)] if len(hits) > max(index, 0) else None
    return text.count("\n", 0, spot.start()) + 1 if spot else 0


def _key_line(text: str, start: int, key: str) -> int:
    """The line of ``key = ...`` in the table starting on line ``start`` (``start`` when the
    key is not written there)."""
    lines = text.split("\n")
    for n in range(max(start, 1), len(lines) + 1):
        line = lines[n - 1].strip()
        if n > start and line.startswith("["):
            break
        if re.match(rf"{re.escape(key)}\s*=", line):
            return n
    return start


def _time(value: object, where: str, key: str) -> datetime:
    if isinstance(value, date) and not isinstance(value, datetime):
        raise ValueError(f"{where}: {key} = {value} is a date; give a time with its UTC offset, "
                         f"such as {value}T23:59:00+01:00")
    if not isinstance(value, datetime):
        raise ValueError(f"{where}: {key} must be a time such as 2026-09-14T23:59:00+02:00 "
                         f"(unquoted), not {value!r}")
    if value.tzinfo is None:
        raise ValueError(f"{where}: {key} = {value.isoformat()} has no UTC offset: add one "
                         "(+02:00, or Z for UTC)")
    return value


def _number(value: object, where: str, key: str, top: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            0 <= value <= top):
        limit = f" and at most {top:g}" if math.isfinite(top) else ""
        raise ValueError(f"{where}: {key} must be a number >= 0{limit}, not {value!r}")
    return float(value)


def read_term(path: Path, known: Iterable[str] | None = None) -> Term:
    """The term file at ``path``; ``known``: the course's assignment names (an assignment
    outside them is an error).

    Raises:
        ValueError: the file cannot be read, is not TOML, or says something that is not a
            schedule (an unknown key, a time without offset, ``closed`` before ``due``, ...),
            with the file and line.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"term file {path}: cannot be read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"term file {path}: not TOML: {exc}") from None
    unknown = sorted(set(data) - TABLES)
    if unknown:
        raise ValueError(f"term file {path}: line {_line_of(text, unknown[0], 0) or '?'}: "
                         f"unknown table {unknown[0]!r}; known: {', '.join(sorted(TABLES))}")
    known_names = set(known) if known is not None else None
    assignments: dict[str, Schedule] = {}
    table = data.get("assignment", {})
    if not isinstance(table, dict):
        raise ValueError(f"term file {path}: 'assignment' must be tables [assignment.NAME]")
    for name, entry in table.items():
        start = _line_of(text, f"assignment.{name}", -1)
        where = f"term file {path}: line {start or '?'}"

        def at(key: str, start: int = start) -> str:
            return f"term file {path}: line {_key_line(text, start, key) or '?'}"

        if known_names is not None and name not in known_names:
            refuse_old_name(name, known_names, where, "rename [assignment.{old}] to "
                            "[assignment.{new}] in the term file, and assignment = \"{old}\" "
                            "in its [[extension]], [[excused]] and [[submitted]] entries")
            raise ValueError(f"{where}: unknown assignment {name!r}; known: "
                             f"{', '.join(sorted(known_names))}")
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: [assignment.{name}] must be a table")
        extra = sorted(set(entry) - SCHEDULE_KEYS)
        if extra:
            raise ValueError(f"{where}: unknown key {extra[0]!r} in [assignment.{name}]; known: "
                             f"{', '.join(sorted(SCHEDULE_KEYS))}")
        if "due" not in entry:
            raise ValueError(f"{where}: [assignment.{name}] has no due time")
        due = _time(entry["due"], at("due"), "due")
        released = (_time(entry["released"], at("released"), "released")
                    if "released" in entry else None)
        closed = _time(entry["closed"], at("closed"), "closed") if "closed" in entry else None
        if released is not None and released > due:
            raise ValueError(f"{at('released')}: released ({released.isoformat()}) is after due "
                             f"({due.isoformat()})")
        if closed is not None and closed < due:
            raise ValueError(f"{at('closed')}: closed ({closed.isoformat()}) is before due "
                             f"({due.isoformat()})")
        assignments[name] = Schedule(
            name, due, released, closed,
            _number(entry.get("late_penalty", 0), at("late_penalty"), "late_penalty", 100),
            _number(entry["missing"], at("missing"), "missing") if "missing" in entry else None)
    term = Term(path, assignments)
    for kind, keys in (("extension", {"student", "assignment", "due", "closed"}),
                       ("excused", {"student", "assignment", "reason"}),
                       ("submitted", {"student", "assignment", "at"})):
        rows = data.get(kind, [])
        if not isinstance(rows, list):
            raise ValueError(f"term file {path}: line {_line_of(text, kind, -1) or '?'}: write "
                             f"[[{kind}]] (a list of tables), not [{kind}]")
        for i, row in enumerate(rows):
            start = _line_of(text, kind, i)
            where = f"term file {path}: line {start or '?'}"

            def at(key: str, start: int = start) -> str:
                return f"term file {path}: line {_key_line(text, start, key) or '?'}"

            extra = sorted(set(row) - keys)
            if extra:
                raise ValueError(f"{where}: unknown key {extra[0]!r} in [[{kind}]]; known: "
                                 f"{', '.join(sorted(keys))}")
            student, name = row.get("student"), row.get("assignment")
            if not isinstance(student, str) or not student.strip():
                raise ValueError(f"{where}: [[{kind}]] needs student = \"...\" (a GitHub "
                                 "username or the roster's identifier)")
            if name not in assignments:
                raise ValueError(f"{at('assignment')}: [[{kind}]] names assignment {name!r}, "
                                 "which has no [assignment.NAME] schedule in this file")
            key = (student.strip().casefold(), name)
            target = {"extension": term.extensions, "excused": term.excused,
                      "submitted": term.submitted}[kind]
            if key in target:
                raise ValueError(f"{where}: a second [[{kind}]] for {student} and {name}")
            term.lines[(kind, *key)] = _key_line(text, start, "student")
            if kind == "extension":
                due = _time(row.get("due"), at("due"), "due")
                closed = _time(row["closed"], at("closed"), "closed") if "closed" in row else None
                if closed is not None and closed < due:
                    raise ValueError(f"{at('closed')}: closed is before due")
                term.extensions[key] = (due, closed)
            elif kind == "excused":
                reason = row.get("reason")
                if not isinstance(reason, str) or not reason.strip():
                    raise ValueError(f"{where}: [[excused]] needs reason = \"...\" (it is shown "
                                     "to the learner)")
                term.excused[key] = reason.strip()
            else:
                term.submitted[key] = _time(row.get("at"), at("at"), "at")
    return term


# ------------------------------------------------------------------ the LMS's late markers

@dataclass(frozen=True)
class LmsLate:
    """A submission the LMS marks late (Canvas's ``LATE`` in its zip, Moodle's ``... late``
    status), with the time it came in where the LMS gives it (Moodle's worksheet: ``Last
    modified (submission)``, written without a UTC offset: the assignment's due time's
    offset is taken)."""

    lms: str
    at: str = ""  # as the LMS wrote it; "" when the LMS does not say


MOODLE_TIME_FORMATS = ("%A, %d %B %Y, %I:%M %p", "%d %B %Y, %I:%M %p", "%A, %d %B %Y, %H:%M")


def lms_time(text: str, like: datetime) -> datetime | None:
    """The LMS's time ``text`` (Moodle's ``Wednesday, 4 November 2026, 11:02 AM``, or ISO
    8601), in ``like``'s UTC offset where it has none; None when it is not such a time."""
    text = text.strip()
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        when = None
        for fmt in MOODLE_TIME_FORMATS:
            try:
                when = datetime.strptime(text, fmt)
                break
            except ValueError:
                continue
    if when is None:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=like.tzinfo)


# ------------------------------------------------------------------------------ decisions

@dataclass(frozen=True)
class Decision:
    """What the gradebook should say for one learner and assignment.

    ``state``: ``graded``, ``late`` (graded, a penalty taken), ``excused``, ``pending`` (not
    submitted, not yet due), ``open`` (not submitted, due passed, late work still accepted),
    ``missing`` (not submitted, closed), ``invalid`` or ``error`` (not graded), ``unreleased``.
    ``score``: the points the exports write (``None``: leave the LMS cell as it is).
    """

    student: str
    assignment: str
    state: str
    score: float | None
    max_score: float
    note: str = ""
    excused: bool = False

    @property
    def needs_attention(self) -> bool:
        """Missing, late, not graded: the instructor should look."""
        return self.state in ("late", "open", "missing", "invalid", "error")


def _stamp(when: datetime) -> str:
    return when.isoformat(timespec="minutes")


def _keys(student: str, roster: Roster | None) -> list[str]:
    """The names a term file may use for ``student``: the username and its roster
    identifier."""
    keys = [student.casefold()]
    entry = roster.find(student) if roster is not None else None
    if entry is not None and entry.identifier:
        keys.append(entry.identifier.casefold())
    return keys


def _lookup(table: dict, student: str, assignment: str, roster: Roster | None):
    return next((table[(k, assignment)] for k in _keys(student, roster)
                 if (k, assignment) in table), None)


def decide(results: Iterable[Result], term: Term | None, now: datetime,
           roster: Roster | None = None, assignments: Iterable[str] | None = None,
           marks: dict[tuple[str, str], LmsLate] | None = None
           ) -> dict[tuple[str, str], Decision]:
    """One decision per (learner, assignment): every learner with a result or on the roster
    (linked to a GitHub username), every assignment of ``assignments`` (default: those with a
    result). ``results`` carry the hand-set scores already. ``marks``: the submissions the
    LMS marks late, by (learner casefolded, assignment)."""
    latest = {(r.student, r.assignment): r for r in results}
    names = sorted(set(assignments) if assignments is not None else {a for _, a in latest})
    students = {s for s, _ in latest}
    rostered: set[str] = set()
    if roster is not None:
        have = {s.casefold() for s in students}
        rostered = {e.github_username for e in roster.entries if e.github_username}
        students |= {e for e in rostered if e.casefold() not in have}
        rostered = {s for s in students if roster.find(s) is not None}
    points: dict[str, float] = {}
    for (_, a), r in latest.items():
        points[a] = max(points.get(a, 0.0), r.max_score)
    found: dict[tuple[str, str], Decision] = {}
    for student in sorted(students):
        for name in names:
            r = latest.get((student, name))
            scheduled = term is not None and name in term.assignments
            if r is None and not scheduled and student not in rostered:
                continue  # no schedule, not on the roster, no result: nothing to say
            mark = (marks or {}).get((student.casefold(), name))
            found[(student, name)] = _decide_one(student, name, r, term, now, roster,
                                                 points.get(name, 0.0), mark)
    return found


def _decide_one(student: str, name: str, r: Result | None, term: Term | None, now: datetime,
                roster: Roster | None, points: float, mark: LmsLate | None = None
                ) -> Decision:
    schedule = term.assignments.get(name) if term is not None else None
    top = r.max_score if r is not None and r.max_score else points
    if schedule is None:  # no schedule: the grader's score where it graded, else nothing
        if r is not None and r.status == "graded":
            return Decision(student, name, "graded", r.score, top)
        if r is not None and r.status in ("invalid", "error"):
            return Decision(student, name, r.status, None, top, r.message)
        what = "left as released" if r is not None else "no notebook found"
        return Decision(student, name, "missing", None, top,
                        f"not submitted ({what}); no schedule says when it is due")
    assert term is not None
    reason = _lookup(term.excused, student, name, roster)
    if reason is not None:
        return Decision(student, name, "excused", None, top, f"excused: {reason}", True)
    due, closed = schedule.due, schedule.closed
    extended = _lookup(term.extensions, student, name, roster)
    if extended is not None:
        due, closed = extended[0], extended[1] or (
            max(closed, extended[0]) if closed else None)
    if schedule.released is not None and now < schedule.released and r is None:
        return Decision(student, name, "unreleased", None, top, "not released yet")
    if r is not None and r.status == "graded":
        at = _lookup(term.submitted, student, name, roster)
        lms = mark.lms.capitalize() if mark is not None else ""
        if at is None and mark is not None:
            at = lms_time(mark.at, due) if mark.at else None
            if at is None:  # late by the LMS's word, at a time it does not give
                return Decision(student, name, "late", r.score, top,
                                f"late in {lms} (its zip marks it; the time is not in it): "
                                "no penalty taken until you add a [[submitted]] entry with the "
                                f"time {lms} shows for the submission")
        if at is None or at <= due or not schedule.late_penalty:
            late = at is not None and at > due
            return Decision(student, name, "late" if late else "graded", r.score, top,
                            f"submitted {_stamp(at)}, after the due time {_stamp(due)}; no "
                            "penalty" if late else "")
        days = math.ceil((at - due) / timedelta(days=1))
        share = min(100.0, days * schedule.late_penalty)
        score = max(0.0, r.score - top * share / 100)
        return Decision(student, name, "late", score, top,
                        f"late by {days} day(s) (submitted {_stamp(at)}, due {_stamp(due)}): "
                        f"{share:g}% of the points off, {r.score:g} → {score:g}")
    if r is not None and r.status in ("invalid", "error"):
        return Decision(student, name, r.status, None, top, r.message)
    what = "left as released" if r is not None else "no notebook found"
    if now < due:
        return Decision(student, name, "pending", None, top,
                        f"not submitted yet ({what}); due {_stamp(due)}")
    if closed is not None and now < closed:
        return Decision(student, name, "open", None, top,
                        f"not submitted ({what}); due {_stamp(due)}, late work accepted until "
                        f"{_stamp(closed)}")
    if schedule.missing is None:
        return Decision(student, name, "missing", None, top,
                        f"not submitted ({what}); due {_stamp(due)}")
    return Decision(student, name, "missing", schedule.missing, top,
                    f"not submitted ({what}); due {_stamp(due)}: {schedule.missing:g} points")
