"""Command line: ``python -m autograder release [--check]``, ``publish``, ``grade``, ``merge``,
``regrade``, ``fetch``, ``return-feedback``, ``unpack``, ``feedback-zip`` and ``check``.

Each command's module is imported only when that command runs: a learner's ``check`` needs
neither nbgrader nor ``solutions/``, and ``fetch`` only the standard library.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys

# command -> (module with add_arguments(parser) and run(args), help); release is built in.
COMMANDS: dict[str, tuple[str, str]] = {
    "release": ("", "generate exercises/ and their expected values (autograder/kernel/released/) "
                    "from solutions/"),
    "publish": ("autograder.grader.publish",
                "copy the released course (no solutions, no hidden tests) into a checkout of "
                "its public repository"),
    "grade": ("autograder.grader.grade", "grade submitted notebooks with nbgrader"),
    "merge": ("autograder.grader.merge", "combine the results of grading shards"),
    "regrade": ("autograder.grader.regrade",
                "regrade one student, assignment or question into the term's results"),
    "fetch": ("autograder.grader.classroom.fetch",
              "copy each learner's notebooks from their repository in a GitHub organisation"),
    "return-feedback": ("autograder.grader.classroom.feedback_return",
                        "push each learner's feedback pages to a branch of their own repository"),
    "unpack": ("autograder.grader.classroom.lms_zips",
               "lay out an LMS's bulk download (Canvas, Moodle) of one assignment for grade"),
    "feedback-zip": ("autograder.grader.classroom.lms_feedback",
                     "zip feedback pages named for an LMS's bulk feedback upload"),
    "check": ("autograder.grader.selfcheck",
              "run released notebooks and report their visible checks (for learners)"),
}


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` names; return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(prog="python -m autograder",
                                     description="Learn JAX course tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name == "release":
            command.add_argument("--check", action="store_true", help="exit 1 if a committed "
                                 "exercise or values file differs from what would be generated "
                                 "(values compared within each check's tolerances)")
        elif name == chosen:
            importlib.import_module(module).add_arguments(command)
    args = parser.parse_args(argv)

    if args.command == "release":
        from autograder.grader.grade import reference_cache_default
        from autograder.grader.judging.reference_run import trusted_records
        from autograder.grader.release import COURSE_FOLDERS, release

        # With $LEARN_JAX_REFERENCE_CACHE, the trusted runs are kept there for grade to reuse.
        cache = reference_cache_default()
        report = release(check=args.check, setup_cells_in=COURSE_FOLDERS,
                         record=functools.partial(trusted_records, cache=cache),
                         progress=lambda line: print(line, file=sys.stderr, flush=True))
        for line in report:
            print(line)
        if args.check:
            if report:
                print("Run `python -m autograder release` (or `make release`) and commit.")
                return 1
            print("exercises/ and their values files match solutions/, and every set-up cell "
                  "matches _config.yml.")
        elif not report:
            print("exercises/ already up to date.")
        return 0
    return importlib.import_module(COMMANDS[args.command][0]).run(args)

