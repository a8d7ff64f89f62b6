"""Batch axes and the shapes they leave: ``vmap``'s ``in_axes`` (chapter 10).

A shared value (a parameter) mapped as if it were batched, mapped axes of different sizes,
and the shape errors a wrong ``in_axes`` causes inside the function (broadcasting, matrix
products). ``pmap``'s own axes are in :mod:`.pmap`.
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import Hint, says

HINTS: list[Hint] = [
    Hint("vmap-scalar-mapped",
         "`vmap` was asked to map a value that has no axis there (a scalar, often a parameter "
         "such as the bias): use `None` in `in_axes` for arguments that every example shares, "
         "e.g. `jax.vmap(f, in_axes=(None, 0))(params, xs)`.",
         says("vmap was requested to map its argument along axis")),
    # jnp's operators say "Incompatible shapes for broadcasting", lax's "got incompatible shapes".
    Hint("incompatible-shapes",
         "Two arrays' shapes do not broadcast: broadcasting lines up their *last* axes, so a "
         "factor per row, shape `(n,)`, meets the last axis of an `(n, d)` array. Add the "
         "missing axes, e.g. `scale[:, None]` (shape `(n, 1)`) to scale each row; under `vmap`, "
         "check `in_axes` too.",
         says("incompatible shapes", "Incompatible shapes")),
    Hint("vmap-sizes",
         "The mapped axes of `vmap`'s arguments have different sizes: check `in_axes`, and "
         "use `None` for arguments that are shared rather than batched.",
         says("vmap got inconsistent sizes")),
    Hint("contracting-dims",
         "A matrix product got operands whose inner dimensions differ. Check the shapes; under "
         "`vmap`, each mapped argument loses its batch axis inside the function, so check "
         "`in_axes` (which axis of each argument is the batch?).",
         says("requires contracting dimensions to have the same shape")),
]
