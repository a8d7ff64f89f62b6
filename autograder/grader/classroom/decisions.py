"""The instructor's decisions on top of the grader's: the options that bring them
(``--roster``, ``--canvas-gradebook``, ``--moodle-gradebook``, ``--canvas-columns``,
``--overrides``, ``--term``, ``--assignments``, ``--replace-lms-scores``,
``--replace-lms-excused``, ``--now``), and :func:`settle`, which applies hand-set scores,
records the grades in the gradebook and decides, per learner and assignment, what the LMS
exports write (:func:`autograder.grader.classroom.term.decide`).

Hand-set scores come from two places, applied in this order: manual scores already in the
gradebook of record (``--db``; set in nbgrader's formgrader, say), then the overrides file
(which wins where both set a score). Neither is ever erased by a grading run or a merge, and
``result.json`` keeps what the grader itself found, so a regrade starts again from the
submission and lays the same decisions on top.

The overrides file given is kept in the results folder as ``overrides.csv``; a later run into
that folder without ``--overrides`` applies it again (give an empty overrides file, just the
header, to drop them all).
"""

from __future__ import annotations

import argparse
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from autograder.core.renames import refuse_old_name
from autograder.grader.classroom.classlist import (
    Applied,
    CanvasGradebook,
    Classroom,
    MoodleGradebook,
    Override,
    Roster,
    apply_overrides,
    read_canvas_gradebook,
    read_column_map,
    read_moodle_gradebook,
    read_overrides,
    read_roster,
)
from autograder.grader.classroom.term import LmsLate, Term, decide, read_term
from autograder.grader.result import Result

KEPT_OVERRIDES = "overrides.csv"
GRADEBOOK_REASON = "manual score in the gradebook"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``grade`` and ``merge`` share for the instructor's own files."""
    parser.add_argument("--roster", type=Path, metavar="FILE",
                        help="roster CSV (identifier,github_username[,...]: each learner's "
                             "LMS identifier and GitHub login; GitHub Classroom's export "
                             "works): exports are keyed by the roster's identifier")
    parser.add_argument("--canvas-gradebook", type=Path, metavar="FILE",
                        help="Canvas's gradebook export CSV: grades-canvas.csv is that file "
                             "with the course's scores filled into its columns")
    parser.add_argument("--canvas-columns", type=Path, metavar="FILE",
                        help="CSV assignment,canvas_column for assignments whose Canvas "
                             "title does not name them")
    parser.add_argument("--moodle-gradebook", type=Path, metavar="FILE",
                        help="Moodle's gradebook export (plain text): grades-moodle.csv is "
                             "that file with the course's scores filled into its items")
    parser.add_argument("--moodle-maximum", type=parse_maximum, metavar="A=POINTS,...",
                        help="the maximum grade of each assignment's Moodle item (Moodle's "
                             "import reads points on that scale); default: what the unpacked "
                             "grading worksheet or the gradebook export says")
    parser.add_argument("--lms-record", type=Path, action="append", default=[],
                        metavar="FILE",
                        help="unpack's record (unpacked-A.csv): the LMS's late markers and "
                             "Moodle's maximum grade (grade reads the records in its "
                             "submission folders itself)")
    parser.add_argument("--overrides", type=Path, metavar="FILE",
                        help="hand-set scores, CSV student,assignment,question,score,reason "
                             f"(kept in the results folder as {KEPT_OVERRIDES} for regrades)")
    parser.add_argument("--term", type=Path, metavar="FILE",
                        help="the term file (TOML): each assignment's released, due and "
                             "closed times, late penalty and the points for missing work, "
                             "extensions, excused work (book/grading.md)")
    parser.add_argument("--assignments", type=parse_assignments, metavar="A,B",
                        help="grade and export only these assignments (e.g. 04_prng,05_grad); "
                             "the LMS's other columns are left as they are")
    parser.add_argument("--now", type=parse_now, metavar="TIME",
                        help="decide due and closed against this time (ISO 8601 with offset; "
                             "default: the current time)")
    parser.add_argument("--replace-lms-scores", action="store_true",
                        help="write over scores already in the LMS gradebook export that "
                             "differ (default: keep them, and list each one kept)")
    parser.add_argument("--replace-lms-excused", action="store_true",
                        help="write over EX (excused) in the LMS gradebook export (default: "
                             "keep it, and list each one kept)")


def parse_assignments(text: str) -> list[str]:
    """``"04_prng, 05_grad"`` as a list of names.

    Raises:
        argparse.ArgumentTypeError: an empty list.
    """
    names = list(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    if not names:
        raise argparse.ArgumentTypeError("expected assignment names such as 04_prng,05_grad")
    return names


def parse_maximum(text: str) -> dict[str, float]:
    """``"04_prng=100, 05_grad=50"`` as assignment -> maximum grade.

    Raises:
        argparse.ArgumentTypeError: not such a list, or a maximum that is not a number > 0.
    """
    found: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        try:
            points = float(value)
        except ValueError:
            points = -1.0
        if not name.strip() or not points > 0 or points == float("inf"):
            raise argparse.ArgumentTypeError(f"{part!r}: expected ASSIGNMENT=POINTS, such as "
                                             "04_prng=100")
        found[name.strip()] = points
    if not found:
        raise argparse.ArgumentTypeError("expected ASSIGNMENT=POINTS, such as 04_prng=100")
    return found


def parse_now(text: str) -> datetime:
    """An ISO 8601 time with its UTC offset.

    Raises:
        argparse.ArgumentTypeError: not such a time.
    """
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time such as "
                                         "2026-09-14T23:59:00+02:00") from None
    if when.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no UTC offset (+02:00, or Z)")
    return when


@dataclass(frozen=True)
class Inputs:
    """The instructor's files, read and checked before any grading."""

    roster: Roster | None = None
    canvas: CanvasGradebook | None = None
    canvas_columns: dict[str, str] = field(default_factory=dict)
    overrides: list[Override] = field(default_factory=list)
    overrides_file: Path | None = None
    moodle: MoodleGradebook | None = None
    term: Term | None = None
    assignments: list[str] | None = None  # only these (--assignments)
    now: datetime | None = None  # None: the current time
    replace_scores: bool = False
    replace_excused: bool = False
    moodle_maximum: dict[str, float] = field(default_factory=dict)
    marks: dict[tuple[str, str], LmsLate] = field(default_factory=dict)  # the LMS's late
    lms_learners: set[str] = field(default_factory=set)  # casefolded folders unpack wrote


def lms_records(args: argparse.Namespace) -> list[Path]:
    """The unpack records a run reads: ``--lms-record`` files, and ``unpacked-*.csv`` in the
    submission folders ``grade`` is given."""
    found = list(getattr(args, "lms_record", None) or [])
    for folder in getattr(args, "paths", None) or []:
        if Path(folder).is_dir():
            found += sorted(Path(folder).glob("unpacked-*.csv"))
    return found


def read_marks(records: list[Path]) -> tuple[dict[tuple[str, str], LmsLate],
                                             dict[str, float], set[str]]:
    """From unpack's records: (the submissions the LMS marks late, by (learner casefolded,
    assignment); each Moodle item's maximum grade, by assignment; every learner folder).

    Raises:
        ValueError: a record that cannot be read, or a maximum grade that is not a number.
    """
    from autograder.grader.classroom.lms_zips import TAKEN, read_record

    marks: dict[tuple[str, str], LmsLate] = {}
    maximum: dict[str, float] = {}
    learners: set[str] = set()
    for path in records:
        for row in read_record(path):
            if row.student:
                learners.add(row.student.casefold())
            if row.outcome == TAKEN and row.late:
                marks[(row.student.casefold(), row.assignment)] = LmsLate(row.lms, row.submitted)
            if row.lms == "moodle" and row.maximum.strip():
                try:
                    maximum[row.assignment] = float(row.maximum.replace(",", "."))
                except ValueError:
                    raise ValueError(f"{path}: the maximum grade {row.maximum!r} is not a "
                                     "number") from None
    return marks, maximum, learners


def check_names(inputs: Inputs, students: set[str], known: list[str] | None) -> None:
    """Refuse a term file or overrides file naming a learner nobody has (no submission, not
    on the roster, not in the LMS's gradebook or unpack's record) or an assignment the course
    does not have, with the file and line. Without any list of learners (no roster, no LMS
    file) a learner with no submission is taken as named (work handed in by e-mail).

    Raises:
        ValueError: the first such name.
    """
    listed = (inputs.roster is not None or inputs.canvas is not None
              or inputs.moodle is not None or bool(inputs.lms_learners))
    names = {s.casefold() for s in students} | inputs.lms_learners
    if inputs.roster is not None:
        for e in inputs.roster.entries:
            names |= {v.casefold() for v in (e.identifier, e.github_username) if v}
    for book, columns in ((inputs.canvas, ("ID", "SIS User ID", "SIS Login ID",
                                           "Integration ID")),
                          (inputs.moodle, ("Email address", "ID number", "Username"))):
        if book is None:
            continue
        for c in (book.column(name) for name in columns):
            if c >= 0:
                names |= {row[c].strip().casefold() for row in book.students if row[c].strip()}
    if inputs.term is not None:
        for (kind, student, _), line in sorted(inputs.term.lines.items(),
                                                        key=lambda kv: kv[1]):
            if listed and student not in names:
                raise ValueError(f"term file {inputs.term.path}: line {line}: [[{kind}]] names "
                                 f"student {student!r}, who has no submission and is in no "
                                 "roster or LMS file given (a typo? the GitHub username or "
                                 "the roster's identifier)")
    for o in inputs.overrides:
        where = f"overrides {inputs.overrides_file}: line {o.line}"
        if known is not None and o.assignment not in known:
            refuse_old_name(o.assignment, known, where, "write {new} for {old} in the "
                            "overrides file's assignment column")
            raise ValueError(f"{where}: unknown assignment {o.assignment!r}; known: "
                             f"{', '.join(known)}")
        if listed and o.student.casefold() not in names:
            raise ValueError(f"{where}: student {o.student!r} has no submission and is in no "
                             "roster or LMS file given (a typo?)")


def kept_overrides(out: Path, earlier: list[Path]) -> Path | None:
    """The overrides a run without ``--overrides`` applies again: those kept in ``out``,
    else the one kept in the folders it merges (``earlier``), else None.

    Raises:
        ValueError: the merged folders keep different overrides (which to keep is the
            instructor's choice: ``--overrides``).
    """
    if (out / KEPT_OVERRIDES).is_file():
        return out / KEPT_OVERRIDES
    found = [f / KEPT_OVERRIDES for f in earlier if (f / KEPT_OVERRIDES).is_file()]
    if len({p.read_bytes() for p in found}) > 1:
        raise ValueError(f"{found[0]} and {found[1]} hold different overrides: give the ones to "
                         "keep with --overrides (merge never drops hand-set scores silently)")
    return found[0] if found else None


def read_inputs(args: argparse.Namespace, out: Path, known: list[str] | None = None,
                earlier: list[Path] | None = None) -> Inputs:
    """Read the files ``args`` names (the overrides kept in ``out``, or in the results
    folders ``earlier`` a merge combines, when none is named); ``known``: the course's
    assignments (``--assignments`` and the term file must name them).

    Raises:
        ValueError: a file that cannot be read or is not what it should be, named.
    """
    overrides_file = args.overrides
    if overrides_file is None:
        overrides_file = kept_overrides(out, list(earlier or []))
    chosen = getattr(args, "assignments", None)
    if chosen and known is not None:
        for a in chosen:
            refuse_old_name(a, known, "--assignments", "give {new}")
        unknown = [a for a in chosen if a not in known]
        if unknown:
            raise ValueError(f"--assignments: unknown assignment {', '.join(unknown)}; known: "
                             f"{', '.join(known)}")
    moodle, term = getattr(args, "moodle_gradebook", None), getattr(args, "term", None)
    marks, maximum, learners = read_marks(lms_records(args))
    maximum.update(getattr(args, "moodle_maximum", None) or {})
    for a in getattr(args, "moodle_maximum", None) or {}:
        refuse_old_name(a, known, "--moodle-maximum", "give {new}=POINTS")
    columns = read_column_map(args.canvas_columns) if args.canvas_columns else {}
    for a in columns:
        refuse_old_name(a, known, f"Canvas column map {args.canvas_columns}",
                        "write {new} for {old} in its assignment column (the canvas_column "
                        "stays the LMS's own)")
    return Inputs(
        roster=read_roster(args.roster) if args.roster else None,
        canvas=read_canvas_gradebook(args.canvas_gradebook) if args.canvas_gradebook else None,
        canvas_columns=columns,
        overrides=read_overrides(overrides_file) if overrides_file else [],
        overrides_file=overrides_file,
        moodle=read_moodle_gradebook(moodle) if moodle else None,
        term=read_term(term, known) if term else None,
        assignments=chosen or None, now=getattr(args, "now", None),
        replace_scores=bool(getattr(args, "replace_lms_scores", False)),
        replace_excused=bool(getattr(args, "replace_lms_excused", False)),
        moodle_maximum=maximum, marks=marks, lms_learners=learners)


def _per_question(results: list[Result], applied: list[Applied]) -> dict[tuple[str, str, str],
                                                                       float]:
    """The hand-set scores ``applied`` as one score per question of ``results``: a question's
    own, or a whole assignment's score shared out in proportion to each question's points."""
    manual: dict[tuple[str, str, str], float] = {}
    by_key = {(r.student, r.assignment): r for r in results}
    for a in applied:
        r = by_key.get((a.student, a.assignment))
        if r is None:
            continue
        if a.question:
            manual[(a.student, a.assignment, a.question)] = a.new
            continue
        total = sum(q.max_score for q in r.questions)
        for q in r.questions if total else []:
            manual[(a.student, a.assignment, q.id)] = a.new * q.max_score / total
    return manual


def settle(results: list[Result], inputs: Inputs, out: Path, db: str | None,
           source: Path) -> tuple[list[Result], Classroom]:
    """The results every report shows, and what the reports need to know.

    With ``db``: the gradebook's manual scores are applied, then the overrides file; the
    grades (automatic scores, and the file's hand-set ones as manual scores) are recorded
    there. The overrides file is copied to ``out`` (:data:`KEPT_OVERRIDES`).
    """
    from autograder.grader.course import manual_scores, record_grades

    if inputs.overrides_file is not None:
        kept = out / KEPT_OVERRIDES
        if not kept.exists() or not kept.samefile(inputs.overrides_file):
            shutil.copyfile(inputs.overrides_file, kept)
    from_file, applied, problems = apply_overrides(results, inputs.overrides, inputs.roster)
    if db:
        written = _per_question(from_file, applied)
        record_grades(results, db, source, manual=written)
        earlier = {key: score for key, score in manual_scores(results, db, source).items()
                   if key not in written}
        if earlier:
            from_db = [Override(s, a, q, score, GRADEBOOK_REASON)
                       for (s, a, q), score in sorted(earlier.items())]
            base, applied_db, _ = apply_overrides(results, from_db)
            from_file, applied, problems = apply_overrides(base, inputs.overrides,
                                                           inputs.roster)
            applied = applied_db + applied
    return from_file, classroom(from_file, inputs, applied, problems)


def classroom(shown: list[Result], inputs: Inputs, applied: list[Applied] | None = None,
              problems: list[str] | None = None) -> Classroom:
    """What the reports need: ``inputs`` and the term's decision for every learner and
    assignment of ``shown`` (the results with hand-set scores), of ``--assignments`` only
    when given."""
    if inputs.assignments is not None:
        names = set(inputs.assignments)
    else:
        names = {r.assignment for r in shown if r.max_score > 0}
    now = inputs.now or datetime.now(UTC)
    found = decide([r for r in shown if r.assignment in names], inputs.term, now,
                   inputs.roster, names, inputs.marks)
    return Classroom(roster=inputs.roster, canvas=inputs.canvas,
                     canvas_columns=inputs.canvas_columns, applied=list(applied or []),
                     override_problems=list(problems or []), moodle=inputs.moodle,
                     decisions=found, replace_scores=inputs.replace_scores,
                     replace_excused=inputs.replace_excused,
                     moodle_maximum=dict(inputs.moodle_maximum),
                     warnings=late_policy_warnings(inputs, names))


def late_policy_warnings(inputs: Inputs, names: set[str]) -> list[str]:
    """A warning per assignment the LMS marks late work of while the term file takes a late
    penalty too: if the LMS's own late policy also deducts, the penalty is taken twice."""
    found = []
    for name in sorted(names):
        lmses = sorted({m.lms for (_, a), m in inputs.marks.items() if a == name})
        schedule = inputs.term.assignments.get(name) if inputs.term is not None else None
        if lmses and schedule is not None and schedule.late_penalty:
            count = sum(1 for (_, a) in inputs.marks if a == name)
            where = {"canvas": "Canvas's Late Policies (Gradebook > Settings)",
                     "moodle": "Moodle's grade penalties (where the site enables them)"}
            found.append(f"{name}: {' and '.join(x.capitalize() for x in lmses)} marks "
                         f"{count} submission(s) late and the term file takes late_penalty = "
                         f"{schedule.late_penalty:g}% a day: if "
                         f"{' or '.join(where[x] for x in lmses)} also deduct, the penalty is "
                         "taken twice; turn one of them off")
    return found
