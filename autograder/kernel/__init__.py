"""Code that runs in the learner's kernel: what a notebook imports.

In a graded submission this process is the student's: anything here can be replaced by
their code, so nothing here decides a grade. Checks only report what they saw
(:mod:`autograder.kernel.reporter`); the grader decides outside (:mod:`autograder.grader`).
Imports only itself and :mod:`autograder.core` (a contract ``make test`` checks).

- :mod:`~autograder.kernel.checks`: ``check_array``, ``check_tree``, ``check_scalar``,
  ``check_value``.
- :mod:`~autograder.kernel.jax_checks`: jitted, retracing, purity, key reuse, vectorisation.
- :mod:`~autograder.kernel.timing`: measuring JAX code correctly; timing tests.
- :mod:`~autograder.kernel.hints`: JAX's errors turned into hints; the ``feedback`` wrapper.
- :mod:`~autograder.kernel.tracebacks`: short error displays (the learner's frames).
- :mod:`~autograder.kernel.reporter`: hands each check's evidence to the grader, or decides
  it against the values released with an exercise.
- :mod:`~autograder.kernel.runtime`: backend, devices, sizes per backend.
- :mod:`~autograder.kernel.compat`: where JAX versions differ (Colab's JAX to the newest).
- :mod:`~autograder.kernel.colab`: the set-up cell every notebook starts with.
"""
