"""Hints that know the question: one question's typical mistake, in that question's terms.

A generic hint answers the error's type; here a question names the hint its typical mistakes
should get, matched by the error *and* the question it failed in
(:func:`~autograder.kernel.hints.matchers.in_question`, from the chapter's stem and the
``feedback`` label's question number). This group comes first, so that the question's hint wins
over the generic one for the same error; in any other question that error still gets the
generic hint.

- chapter 07, Question 1 (``safe_log``, a check that survives ``jit``): a Python ``assert`` or
  ``if ...: raise`` on a traced value raises the same error as any Python ``if`` on a tracer,
  but the question teaches ``checkify.check``, not ``jnp.where`` or ``lax.cond``.
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import Hint, all_of, in_question, kind, user_line_re

HINTS: list[Hint] = [
    Hint("checkify-not-assert",
         "A Python `assert` (or `if ...: raise`) asks whether a traced value is true while "
         "`jit` traces the function, before any value exists, so it cannot check the data. "
         "State the condition inside the function with `checkify.check(condition, message)`: "
         "the check becomes part of the compiled program, and `checkify.checkify(safe_log)` "
         "returns its error with the result (`err.get()` is its message, None when it held).",
         all_of(in_question("07_debugging", 1), kind("TracerBoolConversionError"),
                user_line_re(r"^(assert|if)\b")),
         keys=("checkify.check",)),
]
