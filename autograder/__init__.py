"""Helpers shared by the Learn JAX course notebooks and its grader.

The flow mirrors nbgrader's: ``solutions/`` (source) -> ``exercises/`` (release) ->
a student's submission -> grading -> result and feedback. Modules, one concern each:

- :mod:`autograder.runtime`: which backend and devices a notebook runs on; sizes per backend.
- :mod:`autograder.compat`: the one place where JAX versions differ (Colab's JAX to the pin).
- :mod:`autograder.tracebacks`: short error displays (the learner's frames, not the libraries').
- :mod:`autograder.timing`: measuring JAX code correctly and timing tests (speedup checks).
- :mod:`autograder.compare`: array and pytree comparisons with messages a learner can act on.
- :mod:`autograder.jax_checks`: is it jitted, does it retrace, is it pure, is a key reused...
- :mod:`autograder.hints`: turns JAX's typical errors into hints; the ``feedback`` wrapper.
- Deciding checks outside the student's kernel: :mod:`autograder.evidence` (what a check saw,
  as data), :mod:`autograder.judge` (the kernel's side: publish, or compare with released
  values), :mod:`autograder.verdict` (the comparator) and :mod:`autograder.reference_run`
  (the trusted run of the reference answers that records what each check expects, and fills
  :mod:`autograder.compile_cache`, the compilation cache kernels read but never write).
- :mod:`autograder.colab`: the set-up cell every notebook starts with.
- :mod:`autograder.release`: generates ``exercises/`` from ``solutions/``.
- Grading, one module a step: :mod:`autograder.submissions` (who submitted what, from folders),
  :mod:`autograder.rebuild` and :mod:`autograder.screen` (the notebook to run),
  :mod:`autograder.course` (nbgrader course directory, gradebooks), :mod:`autograder.grading`
  (one submission), :mod:`autograder.reports` (CSV, summary, figure, LMS exports), and the
  commands :mod:`autograder.grade` (``--shard K/N``) and :mod:`autograder.merge`.
- Classroom: :mod:`autograder.selfcheck` (a learner's visible checks, in their own CI) and
  :mod:`autograder.classroom_fetch` (a GitHub Classroom organisation's submissions).
"""

__version__ = "0.1.0"
