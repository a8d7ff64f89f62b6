"""The ``regrade`` command: grade one student, one assignment or one question again, into the
term's results.

``python -m autograder regrade RESULTS --submissions DIR --student S [--assignment A]
[--question Q]`` (or ``--assignment A`` alone: everyone's ``A``; ``--question Q`` needs
``--assignment``)

``RESULTS`` is the folder of the term's results (what ``grade`` or ``merge`` wrote, shards
merged or not); ``DIR`` is the folder of submissions, laid out as the course grades it
(``DIR/<student>/...``: a folder per student, fetch's ``<user>/exercises/NN_name.ipynb``
included). The student is always the folder right below ``DIR`` that ``--student`` names,
whatever lies inside it (:func:`~autograder.grader.submissions.discover` with ``root``): a
folder called ``alice`` inside mallory's repository is mallory's work, and ``--student``
must be a plain folder name there (never a path, never a link).

What it does, in order; nothing in ``RESULTS`` changes until the grading and the gradebook
are done:

1. Checks ``RESULTS`` as ``merge`` checks a shard (:func:`~autograder.grader.merge.read_results`:
   identity from the folder layout, every file against ``manifest.json``, signed with the key
   in ``LEARN_JAX_RESULTS_KEY`` when it is set).
2. Grades the chosen submissions (as ``grade`` does, same options) into a scratch folder.
3. Keeps every other result as it was. A question regrade (``--question``) takes only that
   question's verdict from the new grading; every other question keeps its earlier score
   (:func:`combine`). An earlier result whose notebook is no longer there is kept, and said.
4. Lays the instructor's decisions on top as ``grade`` and ``merge`` do: the kept
   ``overrides.csv`` (or ``--overrides``), manual scores in the gradebook (``--db``; by
   default the folder's own ``gradebook.db`` when it has one), and records every result there.
5. Writes the regraded ``result.json`` and ``feedback.html`` into ``RESULTS``, every report
   again (``grades.csv``, ``summary.md``, ``changes.csv``, the exports, the decisions on the
   feedback pages), then a new ``manifest.json`` over all results (re-signed with the key
   when it is set, so later merges accept the folder). ``--export`` defaults to the exports
   the folder already has; an export that was built from ``--roster`` or
   ``--canvas-gradebook`` is only rewritten when that input is given again (or kept by the
   folder), never silently in another form.
6. Prints what changed: per student, assignment and question, the grader's old and new
   score; then the scores as reported (hand-set ones included), also in ``changes.csv``.

Exit status: 0 done, 1 the grader failed (``RESULTS`` untouched), 2 bad usage or a results
folder that does not verify (nothing graded).
"""

from __future__ import annotations

import argparse
import copy
import csv
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from autograder.core.renames import rename_note
from autograder.grader.classroom import decisions
from autograder.grader.grade import (
    SandboxRequired,
    add_common_arguments,
    add_grading_arguments,
    grade_submissions,
    grading_problem,
)
from autograder.grader.result import Result
from autograder.grader.submissions import (
    Submission,
    assignments,
    current_name,
    discover,
    student_folder,
)

GRADEBOOK = "gradebook.db"  # the folder's own gradebook, as merge writes it without --db


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``regrade`` command's options."""
    parser.add_argument("results", type=Path, metavar="RESULTS",
                        help="the term's results folder (from grade or merge); updated in place")
    parser.add_argument("--submissions", type=Path, required=True, metavar="DIR",
                        help="folder of submissions, one folder per student (as graded)")
    parser.add_argument("--student", help="regrade this student (a folder right below DIR)")
    parser.add_argument("--assignment", help="regrade this assignment (of --student, or of "
                                             "everyone)")
    parser.add_argument("--question", help="regrade only this question (an answer cell id of "
                                           "--assignment); every other question keeps its "
                                           "earlier score")
    add_grading_arguments(parser)
    add_common_arguments(parser)
    parser.set_defaults(export=None)  # default: the exports the folder already has


@dataclass(frozen=True)
class Change:
    """One score that a regrade changed (``question`` empty: the assignment's total)."""

    student: str
    assignment: str
    question: str
    old: str  # as written (format_score), "—" for none
    new: str
    why: str = ""  # statuses, when they changed

    def line(self) -> str:
        """The terminal's line: ``student · assignment[ · question]: old → new (why)``."""
        what = " · ".join(filter(None, (self.student, self.assignment, self.question)))
        return f"{what}: {self.old} → {self.new}" + (f" ({self.why})" if self.why else "")


def combine(earlier: Result | None, new: Result, question: str | None) -> tuple[Result, str]:
    """The result to keep for one regraded submission, and a note (``""`` when none).

    Without ``question``, the new result. With it, the earlier result with only that
    question's verdict (score, status, message, timing) taken from the new one, the total
    summed again: a question regrade changes nothing else. Where there is no earlier graded
    result, there is nothing to keep, so the new one stands (noted); where the new grading
    could not grade the submission (invalid, error), the earlier result stands (noted).
    """
    if question is None:
        return new, ""
    if earlier is None or earlier.status != "graded":
        return new, "no earlier graded result to keep: the whole new result stands"
    found = [q for q in new.questions if q.id == question]
    if new.status != "graded" or not found:
        why = new.message or f"status {new.status}"
        return earlier, f"not regraded ({why[:200]}): the earlier result stands"
    kept = copy.deepcopy(earlier)
    ids = [q.id for q in kept.questions]
    if question in ids:
        kept.questions[ids.index(question)] = copy.deepcopy(found[0])
    else:
        kept.questions.append(copy.deepcopy(found[0]))
    kept.score = sum(q.score for q in kept.questions)
    kept.max_score = sum(q.max_score for q in kept.questions)
    kept.timings = {k: v for k, v in kept.timings.items() if k != question}
    if question in new.timings:
        kept.timings[question] = new.timings[question]
    kept.submission = new.submission
    kept.environment, kept.isolation = new.environment, new.isolation
    note = (f"Question {question} was regraded alone; the other questions' scores are those "
            "of the earlier grading.")
    kept.message = " ".join(filter(None, [earlier.message.replace(note, "").strip(), note]))
    return kept, ""


def _score(value: float | None) -> str:
    from autograder.grader.reports.common import format_score

    return "—" if value is None else format_score(value)


def changes(earlier: Result | None, kept: Result) -> list[Change]:
    """What the grader found differently for one submission: its total and each question
    (score or status), old -> new."""
    found: list[Change] = []
    old_total = None if earlier is None or earlier.status != "graded" else earlier.score
    new_total = kept.score if kept.status == "graded" else None
    old_status = earlier.status if earlier else "none"
    if _score(old_total) != _score(new_total) or old_status != kept.status:
        why = "" if old_status == kept.status else f"{old_status} → {kept.status}"
        found.append(Change(kept.student, kept.assignment, "", _score(old_total),
                            _score(new_total), why))
    before = {q.id: q for q in earlier.questions} if earlier else {}
    for q in kept.questions:
        was = before.get(q.id)
        if was is None or _score(was.score) != _score(q.score) or was.status != q.status:
            why = "" if was is not None and was.status == q.status else (
                f"{was.status if was else 'none'} → {q.status}")
            found.append(Change(kept.student, kept.assignment, q.id,
                                _score(was.score if was else None), _score(q.score), why))
    return found


def _export_needs(results: Path, exports: list[str], inputs: decisions.Inputs) -> str:
    """Why an existing export cannot be written again in its form with these inputs, or
    ``""``: a Canvas file built from the course's gradebook export (it has Canvas user IDs)
    needs ``--canvas-gradebook``; a Moodle file keyed by the roster needs ``--roster``."""
    from autograder.grader.reports.exports import MOODLE_USER_COLUMN, export_path

    for name in exports:
        path = export_path(results, name)
        if not path.is_file():
            continue
        try:
            with open(path, newline="", encoding="utf-8-sig") as fh:
                rows = list(csv.reader(fh))
        except (OSError, UnicodeDecodeError, csv.Error):
            continue  # nothing readable to keep: written anew
        if name == "canvas" and inputs.canvas is None and any(
                len(row) > 1 and row[1].strip() for row in rows[1:]):
            return (f"{path} was built from the course's Canvas gradebook export: give it "
                    "again with --canvas-gradebook (and --canvas-columns, --roster as before)")
        if name == "moodle" and inputs.roster is None and rows and rows[0] and (
                rows[0][0] != MOODLE_USER_COLUMN):
            return f"{path} is keyed by the roster: give it again with --roster"
    return ""


def _signed(results: Path) -> bool:
    """Whether ``results``' manifest carries a signature (a readable one; an unreadable
    manifest is refused by :func:`~autograder.grader.merge.read_results`)."""
    import json

    from autograder.grader.judging.manifest import MANIFEST

    try:
        return "hmac_sha256" in json.loads((results / MANIFEST).read_text())
    except (OSError, ValueError, TypeError):
        return False


def _usage_error(args: argparse.Namespace, known: list[str]) -> str:
    """What is wrong with the command line, or ``""``."""
    if not args.results.is_dir() or args.results.is_symlink():
        return f"not a results folder: {args.results}"
    if not args.submissions.is_dir():
        return f"not a folder of submissions: {args.submissions}"
    if not args.student and not args.assignment:
        return "say what to regrade: --student S, --assignment A, or both"
    if args.question and not args.assignment:
        return "--question needs --assignment (the assignment the question is in)"
    if args.assignment:
        new = current_name(args.assignment, known)
        if new != args.assignment:
            print(f"warning: --assignment {args.assignment}: {rename_note(args.assignment, new)}",
                  file=sys.stderr)
        args.assignment = new
        if args.assignment not in known:
            return f"unknown assignment {args.assignment!r}; known: {', '.join(known)}"
    if args.question:
        import nbformat

        from autograder.core.notebook import questions

        ids = [q.answer_id for q in questions(nbformat.read(
            args.source / f"{args.assignment}.ipynb", as_version=4))]
        if args.question not in ids:
            return (f"assignment {args.assignment} has no question {args.question!r}; its "
                    f"questions: {', '.join(ids)}")
    if args.student:
        try:
            student_folder(args.submissions, args.student)
        except ValueError as exc:
            return str(exc)
    return grading_problem(args)


def _chosen(args: argparse.Namespace, known: list[str]) -> list[Submission]:
    """The submissions to regrade: ``--student``'s (every notebook in their folder, however
    nested) and/or ``--assignment``'s, identity from ``--submissions`` as the root."""
    folder = (student_folder(args.submissions, args.student) if args.student
              else args.submissions)
    found = discover([folder], known, args.assignment, args.source, root=args.submissions)
    return [s for s in found if not args.assignment or s.assignment == args.assignment]


def _replace_files(results: Path, scratch: Path, kept: Result) -> None:
    """Put one regraded submission's files into ``results``: its ``result.json``, and the new
    feedback page (an earlier page that the new grading did not replace is removed: it would
    show the earlier scores)."""
    dest = results / kept.student / kept.assignment
    dest.mkdir(parents=True, exist_ok=True)
    made = scratch / kept.student / kept.assignment
    for item in sorted(dest.iterdir()):
        if item.name != "result.json" and (item.is_file() or item.is_symlink()):
            item.unlink()
    for item in sorted(made.iterdir()) if made.is_dir() else []:
        if item.name != "result.json" and item.is_file() and not item.is_symlink():
            shutil.copyfile(item, dest / item.name)
    kept.write(results)


def run(args: argparse.Namespace) -> int:
    """Regrade what ``args`` names into ``args.results``; exit status 0, 1 or 2."""
    from autograder.grader.course import close_workers
    from autograder.grader.judging.manifest import KEY_VARIABLE, MANIFEST, take_key, write_manifest
    from autograder.grader.merge import read_results
    from autograder.grader.reports import EXPORTS, write_reports
    from autograder.grader.reports.exports import export_path
    from autograder.grader.reports.grades import compare_with_previous

    key = take_key()  # out of the environment before any kernel or job process starts
    known = assignments(args.source)
    problem = _usage_error(args, known)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    results_dir: Path = args.results
    if key is None and _signed(results_dir):
        print(f"error: {results_dir / MANIFEST} is signed: set {KEY_VARIABLE} to the key it "
              "was signed with, so that the regraded folder is signed again (without it, "
              "later merges would refuse the folder); nothing was regraded", file=sys.stderr)
        return 2
    try:
        earlier = {k: r for k, (r, _) in read_results(results_dir, key).items()}
        inputs = decisions.read_inputs(args, results_dir)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    exports = (args.export if args.export is not None
               else [n for n in EXPORTS if export_path(results_dir, n).is_file()])
    problem = _export_needs(results_dir, exports, inputs)
    if problem:
        print(f"error: {problem}; nothing was regraded", file=sys.stderr)
        return 2
    subs = _chosen(args, known)
    what = " · ".join(filter(None, (args.student, args.assignment, args.question)))
    if not subs:
        print(f"error: no notebook for {what} in {args.submissions}; nothing was regraded",
              file=sys.stderr)
        return 2
    print(f"regrading {what}: {len(subs)} submission(s)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="learn-jax-regrade-") as tmp:
        scratch = Path(tmp)
        try:
            new = grade_submissions(subs, args, known, scratch)
        except SandboxRequired as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except Exception as exc:  # noqa: BLE001
            print(f"error: grading failed: {exc}; {results_dir} is unchanged", file=sys.stderr)
            return 1
        kept: dict[tuple[str, str], Result] = {}
        notes: list[str] = []
        for r in sorted(new, key=lambda r: (r.student, r.assignment)):
            before = earlier.get((r.student, r.assignment))
            result, note = combine(before, r, args.question)
            if note:
                notes.append(f"{r.student} · {r.assignment}: {note}")
            if result is not before:
                kept[(r.student, r.assignment)] = result
        for student, assignment in sorted(earlier):
            chosen = ((not args.student or student == args.student)
                      and (not args.assignment or assignment == args.assignment))
            if chosen and (student, assignment) not in {(r.student, r.assignment)
                                                       for r in new}:
                notes.append(f"{student} · {assignment}: no notebook found now; the earlier "
                             "result is kept")
        everything = {**earlier, **kept}
        all_results = [everything[k] for k in sorted(everything)]
        db = args.db or (f"sqlite:///{(results_dir / GRADEBOOK).resolve()}"
                         if (results_dir / GRADEBOOK).is_file() else None)
        try:
            shown, classroom = decisions.settle(all_results, inputs, results_dir, db,
                                                args.source)
        except Exception as exc:  # noqa: BLE001
            print(f"error: writing the gradebook failed: {exc}; {results_dir} is unchanged",
                  file=sys.stderr)
            return 1
        finally:
            close_workers()
        for result in kept.values():
            _replace_files(results_dir, scratch, result)
    reported = compare_with_previous(results_dir / "grades.csv", shown)  # before replaced
    write_reports(shown, results_dir, exports=exports, classroom=classroom)
    # after the reports: they write the instructor's decisions into the feedback pages
    write_manifest(results_dir, sorted(everything), key)
    _print_changes(earlier, kept, notes, reported.changes, results_dir)
    return 0


def _print_changes(earlier: dict[tuple[str, str], Result],
                   kept: dict[tuple[str, str], Result], notes: list[str],
                   reported: list, results_dir: Path) -> None:
    """The terminal's account of a regrade: the grader's changes per student, assignment and
    question, then the reported scores (hand-set ones on top) that changed."""
    found = [c for k, r in sorted(kept.items()) for c in changes(earlier.get(k), r)]
    print(f"Regraded {len(kept)} submission(s) into {results_dir}.")
    if found:
        print(f"The grader's scores that changed ({len(found)}):")
        for c in found:
            print(f"  {c.line()}")
    else:
        print("The grader found the same scores as before.")
    for note in notes:
        print(f"  note: {note}")
    if reported:
        print(f"Scores as reported (hand-set scores included), {len(reported)} changed "
              "(also in changes.csv):")
        for c in reported:
            print(f"  {c.student} · {c.assignment}: {_score(c.old)} → {_score(c.new)}")
    else:
        print("No reported score changed (grades.csv and the exports are as before).")
