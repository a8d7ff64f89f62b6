"""State kept outside a function: escaped tracers, Refs and reused PRNG keys (chapters 03, 04).

A pure function returns what it changes instead of saving it on the side (chapter 03); a Ref
(``jax.new_ref``, chapter 03) is state JAX can see, used through ``ref[...]``, never as an array
itself; and a PRNG key is state too: split it and use each key once (chapter 04).
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import Hint, all_of, any_of, kind, says

HINTS: list[Hint] = [
    Hint("escaped-tracer",
         "A tracer escaped its transformation, usually by being stored in a global or a list "
         "outside the function. Return values instead of saving them on the side.",
         kind("UnexpectedTracerError")),
    # A Ref used as an array: an operator on it (a TypeError naming 'Ref' eagerly, an
    # AttributeError of 'AbstractRef' under jit), a JAX function given one (0.7's "Attempting
    # to pass a Ref", 0.12's "a Ref can't be passed where an array is expected"), or a jitted
    # function returning one.
    Hint("ref-as-array",
         "A Ref is not an array: compute with its value, `ref[...]`, write with "
         "`ref[...] = value`, and return `ref[...]`, not the Ref (a jitted function cannot "
         "return a Ref).",
         any_of(all_of(kind("TypeError"), says("'Ref'")),
                all_of(kind("AttributeError"), says("'AbstractRef'")),
                says("Attempting to pass a Ref", "a Ref can't be passed where an array",
                     "mutable array references cannot be returned"))),
    Hint("key-reuse",
         "A PRNG key was used twice: passed to two draws, or drawn from after it was split. "
         "Split it first, `key, subkey = jax.random.split(key)`, draw only with the new keys, "
         "and use each key once.",
         kind("KeyReuseError"),
         keys=("jax.random.split", "fold_in")),
]
