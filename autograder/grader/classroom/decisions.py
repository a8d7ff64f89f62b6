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
from autograder.grader.classroom.term import Term, decide, read_term
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
    parser.add_argument("--overrides", type=Path, metavar="FILE",
                        help="hand-set scores, CSV student,assignment,question,score,reason "
                             f"(kept in the results folder as {KEPT_OVERRIDES} for regrades)")
    parser.add_argument("--term", type=Path, metavar="FILE",
                        help="the term file (TOML): each assignment's released, due and "
                             "closed times, late penalty and the points for missing work, "
                             "extensions, excused work (book/grading.md)")
    parser.add_argument("--assignments", type=parse_assignments, metavar="A,B",
                        help="grade and export only these assignments (e.g. 03_prng,04_grad); "
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
    """``"03_prng, 04_grad"`` as a list of names.

    Raises:
        argparse.ArgumentTypeError: an empty list.
    """
    names = list(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    if not names:
        raise argparse.ArgumentTypeError("expected assignment names such as 03_prng,04_grad")
    return names


def parse_maximum(text: str) -> dict[str, float]:
    """``"03_prng=100, 04_grad=50"`` as assignment -> maximum grade.

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
                                             "03_prng=100")
        found[name.strip()] = points
    if not found:
        raise argparse.ArgumentTypeError("expected ASSIGNMENT=POINTS, such as 03_prng=100")
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


def read_inputs(args: argparse.Namespace, out: Path, known: list[str] | None = None) -> Inputs:
    """Read the files ``args`` names (the overrides kept in ``out`` when none is named);
    ``known``: the course's assignments (``--assignments`` and the term file must name them).

    Raises:
        ValueError: a file that cannot be read or is not what it should be, named.
    """
    overrides_file = args.overrides
    if overrides_file is None and (out / KEPT_OVERRIDES).is_file():
        overrides_file = out / KEPT_OVERRIDES
    chosen = getattr(args, "assignments", None)
    if chosen and known is not None:
        unknown = [a for a in chosen if a not in known]
        if unknown:
            raise ValueError(f"--assignments: unknown assignment {', '.join(unknown)}; known: "
                             f"{', '.join(known)}")
    moodle, term = getattr(args, "moodle_gradebook", None), getattr(args, "term", None)
    return Inputs(
        roster=read_roster(args.roster) if args.roster else None,
        canvas=read_canvas_gradebook(args.canvas_gradebook) if args.canvas_gradebook else None,
        canvas_columns=read_column_map(args.canvas_columns) if args.canvas_columns else {},
        overrides=read_overrides(overrides_file) if overrides_file else [],
        overrides_file=overrides_file,
        moodle=read_moodle_gradebook(moodle) if moodle else None,
        term=read_term(term, known) if term else None,
        assignments=chosen or None, now=getattr(args, "now", None),
        replace_scores=bool(getattr(args, "replace_lms_scores", False)),
        replace_excused=bool(getattr(args, "replace_lms_excused", False)),
        moodle_maximum=dict(getattr(args, "moodle_maximum", None) or {}))


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
                   inputs.roster, names)
    return Classroom(roster=inputs.roster, canvas=inputs.canvas,
                     canvas_columns=inputs.canvas_columns, applied=list(applied or []),
                     override_problems=list(problems or []), moodle=inputs.moodle,
                     decisions=found, replace_scores=inputs.replace_scores,
                     replace_excused=inputs.replace_excused,
                     moodle_maximum=dict(inputs.moodle_maximum))
