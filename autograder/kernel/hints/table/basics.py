"""The untouched stub, and Python slips with arrays (chapters 01, 03 and 05).

An answer cell still raising ``NotImplementedError``; NumPy's habit of assigning into an
array (JAX arrays are immutable: the ``.at[]`` updates of chapter 01); a Python number where
an array is expected; arithmetic on a list or dict of arrays, a pytree (``jax.tree.map``,
chapters 03 and 05).
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import Hint, any_of, kind, says, says_re

HINTS: list[Hint] = [
    Hint("not-attempted",
         "Replace `raise NotImplementedError()` with your answer, then run this cell again.",
         kind("NotImplementedError")),
    Hint("in-place-update",
         "JAX arrays are immutable. Instead of `x[i] = v`, write `x = x.at[i].set(v)` (or "
         "`.add`, `.mul`, `.min`, `.max`).",
         says("in-place item assignment"),
         keys=(".at[",)),
    Hint("python-number",
         "A plain Python number reached code that expects an array (`.astype`, `.shape`, "
         "`.at`, indexing). The tests pass Python floats where the question allows them: "
         "convert first with `jnp.asarray(a)`, or use `jnp` functions, which accept numbers.",
         says_re(r"'(float|int)' object (has no attribute|is not subscriptable)")),
    Hint("pytree-arithmetic",
         "Arithmetic was applied to a Python list, tuple or dict (a pytree node), not to an "
         "array. Apply the operation to every array in the structure with "
         "`jax.tree.map(lambda p, g: ..., params, grads)`.",
         any_of(says("can't multiply sequence by non-int"),
                says_re(r"(unsupported operand type\(s\) for|bad operand type for unary) "
                        r".*'(list|tuple|dict)'"))),
]
