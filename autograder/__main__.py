"""``python -m autograder``: the course's command line (:mod:`autograder.grader.cli`)."""

import sys

from autograder.grader.cli import main

if __name__ == "__main__":
    sys.exit(main())
