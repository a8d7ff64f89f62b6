"""The ``merge`` command: ``python -m autograder merge RESULTS_DIR... --out DIR [--db URL]``.

Shards (``grade --shard K/N``) each write a results folder; ``merge`` combines them into one
``grades.csv``, ``summary.md``, feedback tree and gradebook, the same as grading everything in
one run would have written. Merging is idempotent: the same results merged again change
nothing, in the folder or in the gradebook.

Merge trusts nothing in the files it merges: who a result belongs to comes from the folder
layout (``<shard>/<student>/<assignment>/result.json``, names as grading writes them), a result
that names someone else is refused, and nothing is written outside ``--out``. With the key in
``LEARN_JAX_RESULTS_KEY`` (:mod:`autograder.grader.judging.manifest`), only shards whose manifest a
grading run signed with that key are merged.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from autograder.core.renames import refuse_old_name
from autograder.grader.classroom import decisions
from autograder.grader.grade import add_common_arguments
from autograder.grader.judging.manifest import (
    MANIFEST,
    check_file,
    read_key,
    verify,
    write_manifest,
)
from autograder.grader.reports import write_reports
from autograder.grader.result import Result
from autograder.grader.submissions import assignments, is_safe_name


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``merge`` command's options."""
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULTS_DIR",
                        help="--out folders of `grade` runs (one per shard)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the merged results")
    add_common_arguments(parser)


def _entries(folder: Path) -> list[Path]:
    """The entries of ``folder``, sorted; links are listed, never followed."""
    return sorted(folder.iterdir()) if folder.is_dir() and not folder.is_symlink() else []


def read_results(folder: Path, key: bytes | None = None
                 ) -> dict[tuple[str, str], tuple[Result, Path]]:
    """The results under ``folder`` (``<student>/<assignment>/result.json``), by identity.

    The identity is the folder layout's, never the file's: both names must be ones grading
    writes (:func:`~autograder.grader.submissions.is_safe_name`), and the result inside must
    name the same student and assignment. The shard's manifest (:mod:`.manifest`) is checked:
    with ``key``, it must be signed with it; every file to be merged must be listed with its
    hash, and every listed file present.

    Raises:
        ValueError: a ``result.json`` that cannot be read, sits where it should not, or
            disagrees with its place, or a shard that does not verify; the file is named.
    """
    listed = verify(folder, key)
    found: dict[tuple[str, str], tuple[Result, Path]] = {}
    seen: set[str] = set()
    for student_dir in _entries(folder):
        for where in _entries(student_dir):
            path = where / "result.json"
            if not path.exists() and not path.is_symlink():
                continue
            student, assignment = student_dir.name, where.name
            if student_dir.is_symlink() or where.is_symlink() or path.is_symlink():
                raise ValueError(f"{path}: a symbolic link; results are merged from real "
                                 "folders only")
            if not (is_safe_name(student) and is_safe_name(assignment)):
                raise ValueError(f"{path}: {student}/{assignment} is not a student and "
                                 "assignment name grading writes; not merged")
            try:
                result = Result.from_dict(json.loads(path.read_text()))
            except (OSError, ValueError, TypeError) as exc:
                raise ValueError(f"{path} is not a result.json this grader wrote ({exc})"
                                 ) from None
            if (result.student, result.assignment) != (student, assignment):
                raise ValueError(f"{path} names student {result.student!r}, assignment "
                                 f"{result.assignment!r}, but it is in the folder of "
                                 f"{student}/{assignment}: refused (a result counts only "
                                 "where grading wrote it)")
            for item in _entries(where):
                if item.is_file() and not item.is_symlink():
                    check_file(listed, folder, item)
                    seen.add(item.relative_to(folder).as_posix())
            found[(student, assignment)] = (result, where)
    lost = sorted(set(listed or {}) - seen)
    if lost:
        raise ValueError(f"{folder / MANIFEST} lists {len(lost)} file(s) the shard no longer "
                         f"holds (first: {lost[0]}); not merged")
    return found


def merge(folders: list[Path], out: Path, key: bytes | None = None,
          check: Callable[[set[str]], None] | None = None,
          known: list[str] | None = None) -> list[Result]:
    """Copy every result folder of ``folders`` into ``out``; return the results. With
    ``key`` (default: :data:`~autograder.grader.judging.manifest.KEY_VARIABLE` from the
    environment), only shards whose manifest it signed are merged, and ``out`` gets a
    manifest signed with it too. ``known``: the course's assignments; a result under an old
    name of one of them (:mod:`~autograder.core.renames`) is refused.

    Raises:
        ValueError: when two folders hold different results for one (student, assignment),
            a result is under an old assignment name, or a folder does not verify
            (:func:`read_results`); nothing is copied then.
    """
    key = read_key() if key is None else key
    merged: dict[tuple[str, str], tuple[Result, Path]] = {}
    for folder in folders:
        for key_, (result, where) in read_results(folder, key).items():
            if key_ in merged and merged[key_][0] != result:
                raise ValueError(f"{merged[key_][1]} and {where} hold different results for "
                                 f"student {key_[0]}, assignment {key_[1]}: merge each shard "
                                 "once, from one grading run")
            merged.setdefault(key_, (result, where))
    for (_, assignment), (_, where) in sorted(merged.items()):
        refuse_old_name(assignment, known, f"{where}", "these results were graded under the "
                        "old name: regrade the submissions (`python -m autograder regrade`) "
                        "so that they are graded as {new}; merged as they are, they would "
                        "land in no column of the gradebook or the LMS")
    if check is not None:  # before anything is copied
        check({student for student, _ in merged})
    for (student, assignment), (_, where) in merged.items():
        dest = out / student / assignment  # names checked: inside out
        if dest.resolve() != where.resolve():
            dest.mkdir(parents=True, exist_ok=True)
            for item in _entries(where):
                if item.is_file() and not item.is_symlink():
                    shutil.copy(item, dest / item.name)
    write_manifest(out, merged, key)
    return [result for result, _ in merged.values()]


def run(args: argparse.Namespace) -> int:
    """Merge the folders ``args`` names; exit status 0, 1 (failure) or 2 (usage)."""
    missing = [p for p in args.results if not p.is_dir()]
    if missing:
        print(f"error: not a results folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        known = assignments(args.source)
        inputs = decisions.read_inputs(args, args.out, known, args.results)
        results = merge(args.results, args.out,
                        check=lambda students: decisions.check_names(inputs, students, known),
                        known=known)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not results:
        print("error: no result.json found in " + ", ".join(map(str, args.results)),
              file=sys.stderr)
        return 2
    db = args.db or f"sqlite:///{(args.out / 'gradebook.db').resolve()}"
    try:
        # hand-set scores on top; the grades recorded (manual scores there are kept)
        shown, classroom = decisions.settle(results, inputs, args.out, db, args.source)
    except Exception as exc:  # noqa: BLE001
        print(f"error: writing the gradebook failed: {exc}", file=sys.stderr)
        return 1
    for folder in args.results:  # fetch's record of the commits taken, when a shard has it
        record = folder / "fetched.csv"
        if record.is_file() and record.resolve() != (args.out / "fetched.csv").resolve():
            shutil.copyfile(record, args.out / "fetched.csv")
            break
    write_reports(shown, args.out, exports=args.export, classroom=classroom)
    # signed again: the reports wrote the instructor's decisions into the feedback pages
    write_manifest(args.out, [(r.student, r.assignment) for r in results], read_key())
    print((args.out / "summary.md").read_text(encoding="utf-8"))
    return 0
