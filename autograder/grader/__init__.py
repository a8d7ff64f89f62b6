"""The trusted grader: everything that decides a grade, outside the student's kernel.

Expected values and hidden tests live only here and in the processes this side starts
(the trusted run of the reference answers). It may use :mod:`autograder.core`, and
:mod:`autograder.kernel` for its own trusted runs; the kernel side never imports it.

One module a step, following a notebook's life (source -> release -> submission -> grade):
:mod:`~autograder.grader.release` (``exercises/`` from ``solutions/``),
:mod:`~autograder.grader.submissions` (who submitted what), :mod:`~autograder.grader.rebuild`
(the notebook to run), :mod:`~autograder.grader.sandbox` (the kernel's jail),
:mod:`~autograder.grader.course` (nbgrader's course folder),
:mod:`~autograder.grader.compile_cache` (the kernels' shared compilations),
:mod:`~autograder.grader.grading` (one submission, from its files to its result),
:mod:`~autograder.grader.result`, :mod:`~autograder.grader.reports` (grades, exports, summary,
figure), and the commands :mod:`~autograder.grader.grade`, :mod:`~autograder.grader.merge`,
:mod:`~autograder.grader.selfcheck` (a learner's own visible checks), dispatched by
:mod:`~autograder.grader.cli`. Two sides have a folder of their own:
:mod:`~autograder.grader.judging` (where a grade is decided: the screen, the proofs, the
trusted run of the reference answers, each test cell's verdict and each question's outcome,
the results' manifest) and :mod:`~autograder.grader.classroom` (rosters, LMS files, the
instructor's decisions, fetching and returning work).
"""

import sys

# jsonschema, which nbformat and nbgrader import, checks the "iri" string formats with the
# package rfc3987-syntax when it is installed (jupyter-events asks for it), and that package
# compiles 38 grammars as it is imported: about 1.4 s of CPU in every grader process (the
# command, each job, each nbgrader worker, each trusted run). Nothing here validates an IRI;
# without the package, jsonschema leaves those two formats unchecked. An import that already
# happened in this process is kept.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
