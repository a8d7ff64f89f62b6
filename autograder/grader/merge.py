"""The ``merge`` command: ``python -m autograder merge RESULTS_DIR... --out DIR [--db URL]``.

Shards (``grade --shard K/N``) each write a results folder; ``merge`` combines them into one
``grades.csv``, ``summary.md``, feedback tree and gradebook, the same as grading everything in
one run would have written. Merging is idempotent: the same results merged again change
nothing, in the folder or in the gradebook.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from autograder.grader import decisions
from autograder.grader.grade import add_common_arguments
from autograder.grader.reports import write_reports
from autograder.grader.result import Result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``merge`` command's options."""
    parser.add_argument("results", nargs="+", type=Path, metavar="RESULTS_DIR",
                        help="--out folders of `grade` runs (one per shard)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the merged results")
    add_common_arguments(parser)


def read_results(folder: Path) -> dict[tuple[str, str], tuple[Result, Path]]:
    """The results under ``folder`` (``<student>/<assignment>/result.json``), by identity.

    Raises:
        ValueError: a ``result.json`` that cannot be read, named.
    """
    found: dict[tuple[str, str], tuple[Result, Path]] = {}
    for path in sorted(folder.glob("*/*/result.json")):
        try:
            result = Result.from_dict(json.loads(path.read_text()))
        except (OSError, ValueError, TypeError) as exc:
            raise ValueError(f"{path} is not a result.json this grader wrote ({exc})") from None
        found[(result.student, result.assignment)] = (result, path.parent)
    return found


def merge(folders: list[Path], out: Path) -> list[Result]:
    """Copy every result folder of ``folders`` into ``out``; return the results.

    Raises:
        ValueError: when two folders hold different results for one (student, assignment).
    """
    merged: dict[tuple[str, str], tuple[Result, Path]] = {}
    for folder in folders:
        for key, (result, where) in read_results(folder).items():
            if key in merged and merged[key][0] != result:
                raise ValueError(f"{merged[key][1]} and {where} hold different results for "
                                 f"student {key[0]}, assignment {key[1]}: merge each shard "
                                 "once, from one grading run")
            merged.setdefault(key, (result, where))
    for result, where in merged.values():
        dest = out / result.student / result.assignment
        if dest.resolve() != where.resolve():
            dest.mkdir(parents=True, exist_ok=True)
            for item in where.iterdir():
                if item.is_file() and not item.is_symlink():
                    shutil.copy(item, dest / item.name)
    return [result for result, _ in merged.values()]


def run(args: argparse.Namespace) -> int:
    """Merge the folders ``args`` names; exit status 0, 1 (failure) or 2 (usage)."""
    missing = [p for p in args.results if not p.is_dir()]
    if missing:
        print(f"error: not a results folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        inputs = decisions.read_inputs(args, args.out)
        results = merge(args.results, args.out)
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
    print((args.out / "summary.md").read_text(encoding="utf-8"))
    return 0
