"""State kept outside a function: escaped tracers and reused PRNG keys (chapters 02 and 03).

A pure function returns what it changes instead of saving it on the side (chapter 02), and a
PRNG key is state too: split it and use each key once (chapter 03).
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import Hint, kind

HINTS: list[Hint] = [
    Hint("escaped-tracer",
         "A tracer escaped its transformation, usually by being stored in a global or a list "
         "outside the function. Return values instead of saving them on the side.",
         kind("UnexpectedTracerError")),
    Hint("key-reuse",
         "A PRNG key was used twice: passed to two draws, or drawn from after it was split. "
         "Split it first, `key, subkey = jax.random.split(key)`, draw only with the new keys, "
         "and use each key once.",
         kind("KeyReuseError"),
         keys=("jax.random.split", "fold_in")),
]
