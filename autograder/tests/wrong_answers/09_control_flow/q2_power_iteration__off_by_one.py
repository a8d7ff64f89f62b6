# expect: It matches one step fewer: lax.fori_loop(lower, upper, body, init) runs upper - lower times
# diagnosis: It matches one step fewer: lax.fori_loop(lower, upper, body, init) runs upper - lower times
# Sharp bit: off-by-one trip count (fori_loop(1, num_steps, ...) runs num_steps - 1 steps)
import jax.numpy as jnp
from jax import lax


def power_iteration(A, num_steps):
    """num_steps of power iteration from the normalised ones vector; returns (eigenvalue, v)."""
    n = A.shape[0]
    v0 = jnp.ones(n) / jnp.sqrt(n)

    def body(i, v):
        w = A @ v
        return w / jnp.linalg.norm(w)

    v = lax.fori_loop(1, num_steps, body, v0)
    return v @ A @ v, v
