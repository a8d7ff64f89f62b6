"""``grades.csv``, and the changes a regrade made (``changes.csv``)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from autograder.grader.classroom.classlist import Applied
from autograder.grader.classroom.term import Decision
from autograder.grader.reports.common import (
    SafeCsvWriter,
    by_submission,
    csv_plain,
    format_score,
    sorted_results,
)
from autograder.grader.result import Result

GRADES_COLUMNS = ("student", "assignment", "score", "max_score", "status", "message",
                  "final_score", "decision")
CHANGES_COLUMNS = ("student", "assignment", "old_score", "new_score")
CHANGES = "changes.csv"
# grades.csv's status for a learner and assignment with no submission (the term's decision)
NO_SUBMISSION = ("pending", "open", "missing", "excused", "unreleased")


def write_grades(results: Iterable[Result], path: Path,
                 decisions: dict[tuple[str, str], Decision] | None = None,
                 applied: Iterable[Applied] = ()) -> None:
    """Write ``grades.csv``: one row per submission (columns :data:`GRADES_COLUMNS`), and
    one per learner and assignment with no submission that ``decisions`` covers (a rostered
    learner with nothing submitted: an empty score, the decision's state as status).

    ``final_score`` is what the LMS exports write (a late penalty taken, the points for
    missing work), empty where they leave the LMS's cell; ``decision`` says why (excused,
    late, not submitted, each hand-set score of ``applied`` with its reason)."""
    found = decisions or {}
    by_hand: dict[tuple[str, str], list[str]] = {}
    for a in applied:
        by_hand.setdefault((a.student, a.assignment), []).append(
            (f"{a.question}: " if a.question else "") + f"{format_score(a.new)} set by hand "
            f"({a.reason})")
    rows = []
    for r in sorted_results(results):
        d = found.get((r.student, r.assignment))
        final, why = _decided(d, r)
        why = "; ".join(filter(None, [*by_hand.get((r.student, r.assignment), []), why]))
        rows.append([r.student, r.assignment, format_score(r.score), format_score(r.max_score),
                     r.status, r.message, final, why])
    have = {(r.student, r.assignment) for r in results}
    for key in sorted(set(found) - have):
        d = found[key]
        rows.append([d.student, d.assignment, "", format_score(d.max_score), d.state, "",
                     *_decided(d, None)])
    rows.sort(key=lambda row: (row[0], row[1]))
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = SafeCsvWriter(fh)
        writer.writerow(GRADES_COLUMNS)
        writer.writerows(rows)


def _decided(d: Decision | None, r: Result | None) -> list[str]:
    """The ``final_score`` and ``decision`` cells."""
    if d is None:
        graded = r is not None and r.status == "graded"
        return [format_score(r.score) if graded and r is not None else "", ""]
    if d.excused:
        return ["EX", d.note]
    return ["" if d.score is None else format_score(d.score),
            d.note if d.state not in ("graded", "invalid", "error") else ""]


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
            recorded = (row.get("final_score") or "").strip()
            if recorded and recorded != "EX":
                row = {**row, "score": recorded}  # the score recorded, late penalty and all
            if not (row.get("score") or "").strip() and row.get("status") in NO_SUBMISSION:
                continue  # a learner with no submission: no score to compare
            try:
                score = float(row["score"])
            except (TypeError, ValueError):
                raise ValueError(f"line {reader.line_num}: the score {row['score']!r} is not a "
                                 "number") from None
            scores[(csv_plain(row["student"]), csv_plain(row["assignment"]))] = score
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
        writer = SafeCsvWriter(fh)
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


def compare_with_previous(path: Path, results: Iterable[Result],
                          decided: dict | None = None) -> Regrade:
    """Compare ``results`` with the ``grades.csv`` at ``path`` (call before replacing it):
    the scores recorded (``final_score``; ``decided``'s, where a decision writes one), else
    the grader's."""
    if not path.exists():
        return Regrade(previous=False, changes=[])
    try:
        old = read_scores(path)
    except ValueError as exc:
        return Regrade(previous=True, changes=[], problem=str(exc))
    new = {}
    for key, r in by_submission(results).items():
        d = (decided or {}).get(key)
        new[key] = d.score if d is not None and d.score is not None else r.score
    return Regrade(previous=True, changes=score_changes(old, new))
