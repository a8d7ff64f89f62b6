"""Command line: ``python -m autograder release [--check]`` and ``python -m autograder grade``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Run the ``release`` or ``grade`` command; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m autograder",
                                     description="Learn JAX course tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    rel = sub.add_parser("release", help="generate exercises/ from solutions/")
    rel.add_argument("--check", action="store_true",
                     help="exit 1 if a committed exercise differs from what would be generated")
    from autograder.grade import add_arguments

    add_arguments(sub.add_parser("grade", help="grade submitted notebooks with nbgrader"))
    args = parser.parse_args(argv)

    if args.command == "release":
        from autograder.release import COURSE_FOLDERS, release

        report = release(check=args.check, setup_cells_in=COURSE_FOLDERS)
        for line in report:
            print(line)
        if args.check:
            if report:
                print("Run `python -m autograder release` (or `make release`) and commit.")
                return 1
            print("exercises/ matches solutions/, and every set-up cell matches _config.yml.")
        elif not report:
            print("exercises/ already up to date.")
        return 0
    from autograder.grade import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
