# expect: Hint: An array (or a traced value) was passed as a static argument
# hint: loop with `lax.fori_loop` when a count is traced
# Sharp bit: a static trip count "fixes" jit but unrolls the loop: the jaxpr grows with it
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def power_iteration(A, num_steps):
    """num_steps of power iteration from the normalised ones vector; returns (eigenvalue, v)."""
    n = A.shape[0]
    v = jnp.ones(n) / jnp.sqrt(n)
    for _ in range(num_steps):
        w = A @ v
        v = w / jnp.linalg.norm(w)
    return v @ A @ v, v
