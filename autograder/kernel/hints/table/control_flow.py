"""Control flow with ``jax.lax``: ``switch``, and loops under ``grad`` (chapter 09).

Python control flow on traced values is in :mod:`.tracing` (its hints point here).
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import Hint, says

HINTS: list[Hint] = [
    Hint("grad-while-loop",
         "Reverse-mode `jax.grad` cannot go through `lax.while_loop` (or a `fori_loop` whose "
         "bounds are traced): the number of steps is unknown when the backward pass is built. "
         "Use `lax.scan`, whose length is fixed, for a loop you differentiate.",
         says("Reverse-mode differentiation does not work for lax.while_loop")),
    Hint("switch-index",
         "`lax.switch` picks a branch by an integer index, not a boolean: build the index as "
         "an integer, e.g. `(x >= 0).astype(jnp.int32) + (x >= 4).astype(jnp.int32)`.",
         says("Index type must be an integer, got")),
]
