"""Turn JAX's typical errors into hints, and wrap test code so learners see them.

A failing check shows the learner, in this order:

1. the error's class and first line (``AssertionError: grads['b'] has the wrong shape ...``);
2. the test's own advice for this error, attached with :func:`advice` (``Hint: ...``);
3. a generic course hint for the error (``Hint: ...``), only when it adds something.

**The specific message wins.** A test's own message (an ``AssertionError`` raised by the test
or by a check in ``autograder``) is shown first, and a generic hint is added to it only when
the message does not already give that advice (:class:`Hint` ``keys``). Advice that a test
attached to an error with :func:`advice` replaces the generic hint for that error: the test
knows the situation, the generic hint only the error's type. (Exercise 04's shuffled epochs
are the example: a key reused *across epochs* needs ``fold_in``, and the generic "split the
key" advice for ``KeyReuseError`` would loop on the same error.)

Hints are matched against the exception's class, message, and where it was raised (a frame
of ``pmap``, the source line of the learner's code), so that the same mistake gets the same
hint on every JAX version the course supports even when JAX words its error differently.

The package, read in this order:

- :mod:`.matchers`: what a :class:`Hint` is, and the matchers hints are written with;
- :mod:`.table`: the hints, in small groups of one concern each (PRNG keys, ``grad``,
  tracing, ``vmap``, sharding...), tried in order, the first match winning;
- :mod:`.attached`: what a test attaches to an error: its own advice (:func:`advice`) and
  the case it covers (:func:`case`);
- :mod:`.where`: the question and chapter a failure belongs to (``feedback`` marks each), so
  a hint can fit its question;
- :mod:`.syllabus`: which chapter teaches each API a hint names; a hint shown in an earlier
  chapter says where such an API is taught, ``(chapter 09)``;
- :mod:`.display`: what the learner sees: the hint for an error (:func:`hint_for`), what to
  show for a failure (:func:`explain`) and the :func:`feedback` wrapper of every test cell.

Everything is imported from here: ``from autograder.kernel.hints import feedback, case``.
"""

from __future__ import annotations

from autograder.kernel.hints.attached import advice, attach_advice, case, case_of
from autograder.kernel.hints.display import (
    Explanation,
    explain,
    feedback,
    hint_for,
    hint_name,
    matching_hint,
)
from autograder.kernel.hints.matchers import Hint, Matcher, transformation
from autograder.kernel.hints.table import HINTS
from autograder.kernel.tracebacks import SUMMARY_CHARS, first_line

# The names the module had before it became a package, for code that reached inside it.
_HINTS = HINTS
_match = matching_hint

__all__ = [
    "HINTS",
    "SUMMARY_CHARS",
    "Explanation",
    "Hint",
    "Matcher",
    "advice",
    "attach_advice",
    "case",
    "case_of",
    "explain",
    "feedback",
    "first_line",
    "hint_for",
    "hint_name",
    "matching_hint",
    "transformation",
]
