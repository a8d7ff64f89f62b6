"""Differentiating with ``jax.grad`` (chapter 05).

NaN gradients from ``jnp.where``, a loss that is not one number, integer inputs, and
``argnums`` (which counts from 0, and is what ``grad`` has instead of ``static_argnums``).
Differentiating through a loop is in :mod:`.control_flow`.
"""

from __future__ import annotations

from autograder.kernel.hints.matchers import Hint, all_of, kind, says, says_re

HINTS: list[Hint] = [
    # A test's own message that reports NaN in a gradient.
    Hint("nan-gradient-where",
         "A NaN gradient where the function's value is fine usually comes from `jnp.where`: "
         "`jax.grad` differentiates both branches, and a NaN or inf in the branch that is not "
         "selected still poisons the gradient (0 * inf = NaN). Use the double-where trick: "
         "first make the unsafe branch's input safe, e.g. `safe_x = jnp.where(x > 0, x, 1.0)`, "
         "then `jnp.where(x > 0, jnp.sqrt(safe_x), other)`; or branch with `lax.cond` / "
         "`lax.switch`, which differentiate only the selected branch.",
         all_of(kind("AssertionError"), says("NaN"), says_re(r"(?i)(?<![\w])grad(?![\w])")),
         keys=("double-where", "double where")),
    Hint("grad-non-scalar",
         "`jax.grad` needs a function that returns one number. Reduce the output (e.g. "
         "`.sum()` or a mean) or use `jax.jacrev`/`jax.vmap(jax.grad(...))`; if the function "
         "returns a pair `(loss, extras)`, pass `has_aux=True`.",
         says("Gradient only defined for scalar-output functions")),
    Hint("grad-int-input",
         "`jax.grad` differentiates with respect to float inputs; pass floats (e.g. `2.0`, "
         "not `2`; `jnp.arange(n, dtype=jnp.float32)`) or differentiate with respect to "
         "another argument (`argnums`).",
         says("grad requires real- or complex-valued inputs")),
    Hint("argnums-one-based",
         "`argnums` counts the function's positional arguments from 0: the first argument is "
         "`argnums=0`, so `argnums=(0, 1)` differentiates with respect to the first two. An "
         "`argnums` past the last argument asks for an argument the call does not pass.",
         says_re(r"differentiating with respect to argnums=.* requires at least \d+ positional"),
         keys=("counts from 0", "from 0")),
    Hint("grad-static-argnums",
         "`jax.grad` has no `static_argnums`: choose the arguments to differentiate with "
         "`argnums` (e.g. `argnums=(0, 2)` returns the pair of gradients); the other arguments "
         "are simply not differentiated, integer data included.",
         says("unexpected keyword argument 'static_argnums'")),
]
