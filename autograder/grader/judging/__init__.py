"""The judging side: where a grade is decided, outside the student's kernel.

Everything that decides whether a submission earns its points lives in this folder, and nothing
else in the grader does: a reader who asks "where is a verdict decided?" (an appeal, an audit, a
new attack) reads here. It holds

- :mod:`~autograder.grader.judging.screen`: which of the learner's cells may run at all (the
  closed world of names, read from the source, before any kernel starts);
- :mod:`~autograder.grader.judging.proof`: the per-run token that shows a test cell ran to its
  end (added to the cells that run, found in their outputs);
- :mod:`~autograder.grader.judging.reference_run`: the checks' trusted half, what the reference
  answers give, recorded in a process of the grader's own (never the learner's kernel);
- :mod:`~autograder.grader.judging.verdict`: each test cell decided from those records and the
  evidence the learner's kernel published;
- :mod:`~autograder.grader.judging.question`: each question's points, status and message, from
  its cell's proof, that verdict and what was known before the run (missing, screened);
- :mod:`~autograder.grader.judging.manifest`: the results a grading run wrote, hashed and
  authenticated, so that ``merge`` takes only grades a keyed run decided.

What runs a submission (the sandbox, nbgrader's course folder and its preprocessors, the
pipeline :mod:`autograder.grader.grading`), what shapes the notebook before it is judged
(:mod:`autograder.grader.rebuild`, :mod:`autograder.grader.release`), what reports a grade
(:mod:`autograder.grader.result`, ``reports/``) and the classroom side stay outside: they call
in, and this folder imports none of them (``pyproject.toml``'s import contracts check both
directions: the classroom side never imports this folder).
"""
