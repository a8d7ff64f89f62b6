"""Configuration passed to ``jit``: static arguments (chapter 06).

``jit`` traces arrays; a string or other setting must be marked static
(``static_argnames``), and a static argument must be a hashable Python value, not data.
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import Hint, says

HINTS: list[Hint] = [
    Hint("string-traced",
         "A string (or another non-array value) was passed to a jitted function as an "
         "ordinary argument, and `jit` can only trace arrays. Mark configuration arguments "
         "static: `jax.jit(f, static_argnames=\"mode\")` (the name must match the parameter's "
         "name, and then both `f(x, \"l2\")` and `f(x, mode=\"l2\")` work).",
         says("as an abstract array"),
         keys=("static_argnames",)),
    Hint("unhashable-static",
         "An array (or a traced value) was passed as a static argument. Static arguments must "
         "be hashable Python values fixed at trace time (strings, ints, tuples), and each new "
         "value compiles a new program. Data that changes (thresholds, learning rates, step "
         "counts) should be ordinary traced arguments: leave it out of `static_argnames`, and "
         "loop with `lax.fori_loop` when a count is traced.",
         says("Non-hashable static arguments are not supported")),
]
