"""Learn JAX's course package: what notebooks import, and the grader that grades them.

Three sub-packages, named for where their code runs:

- :mod:`autograder.kernel`: **in the learner's kernel** (Colab, Jupyter, a student's
  submission being graded). Checks, timing, JAX checks, hints, short tracebacks, the runtime
  report, version shims, the Colab set-up cell, and the reporter that hands what a check saw
  to the grader. Nothing here decides a grade: a submission controls this process.
- :mod:`autograder.grader`: **the trusted grader**, outside every student's kernel. Finding
  submissions, rebuilding and screening them, the sandbox, the nbgrader course, grading one
  submission, the trusted run of the reference answers, the verdict, reports and exports,
  merge, fetch, release, and the command line (``python -m autograder``).
- :mod:`autograder.core`: **pure code both sides use**: the evidence encoding, the comparison
  of arrays with messages, deciding one check from data, notebook metadata helpers. It
  imports neither side.

The learner side never imports the grader side, and the core imports neither; ``make test``
checks this contract (``.importlinter``). The old flat module names (``autograder.hints``,
``autograder.compare``...) still import, with a warning, for notebooks saved before the split
(:mod:`autograder._moved`).
"""

from autograder import _moved

__version__ = "0.2.0"

_moved.install()
