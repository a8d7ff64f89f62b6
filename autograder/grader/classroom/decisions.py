"""The instructor's decisions on top of the grader's: the options that bring them
(``--roster``, ``--canvas-gradebook``, ``--canvas-columns``, ``--overrides``), and
:func:`settle`, which applies hand-set scores and records the grades in the gradebook.

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
from pathlib import Path

from autograder.grader.classroom.classlist import (
    Applied,
    CanvasGradebook,
    Classroom,
    Override,
    Roster,
    apply_overrides,
    read_canvas_gradebook,
    read_column_map,
    read_overrides,
    read_roster,
)
from autograder.grader.result import Result

KEPT_OVERRIDES = "overrides.csv"
GRADEBOOK_REASON = "manual score in the gradebook"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``grade`` and ``merge`` share for the instructor's own files."""
    parser.add_argument("--roster", type=Path, metavar="FILE",
                        help="GitHub Classroom roster CSV (identifier,github_username,"
                             "github_id,name): exports are keyed by the roster's identifier")
    parser.add_argument("--canvas-gradebook", type=Path, metavar="FILE",
                        help="Canvas's gradebook export CSV: grades-canvas.csv is that file "
                             "with the course's scores filled into its columns")
    parser.add_argument("--canvas-columns", type=Path, metavar="FILE",
                        help="CSV assignment,canvas_column for assignments whose Canvas "
                             "title does not name them")
    parser.add_argument("--overrides", type=Path, metavar="FILE",
                        help="hand-set scores, CSV student,assignment,question,score,reason "
                             f"(kept in the results folder as {KEPT_OVERRIDES} for regrades)")


@dataclass(frozen=True)
class Inputs:
    """The instructor's files, read and checked before any grading."""

    roster: Roster | None = None
    canvas: CanvasGradebook | None = None
    canvas_columns: dict[str, str] = field(default_factory=dict)
    overrides: list[Override] = field(default_factory=list)
    overrides_file: Path | None = None


def read_inputs(args: argparse.Namespace, out: Path) -> Inputs:
    """Read the files ``args`` names (the overrides kept in ``out`` when none is named).

    Raises:
        ValueError: a file that cannot be read or is not what it should be, named.
    """
    overrides_file = args.overrides
    if overrides_file is None and (out / KEPT_OVERRIDES).is_file():
        overrides_file = out / KEPT_OVERRIDES
    return Inputs(
        roster=read_roster(args.roster) if args.roster else None,
        canvas=read_canvas_gradebook(args.canvas_gradebook) if args.canvas_gradebook else None,
        canvas_columns=read_column_map(args.canvas_columns) if args.canvas_columns else {},
        overrides=read_overrides(overrides_file) if overrides_file else [],
        overrides_file=overrides_file)


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
    return from_file, Classroom(roster=inputs.roster, canvas=inputs.canvas,
                                canvas_columns=inputs.canvas_columns, applied=applied,
                                override_problems=problems)
