# expect: It is the ones vector, not normalised: start from v_0 = ones(n) / sqrt(n)
# diagnosis: It is the ones vector, not normalised: start from v_0 = ones(n) / sqrt(n)
# Sharp bit: wrong initial carry (v0 not normalised), so num_steps = 0 gives the wrong answer
import jax.numpy as jnp
from jax import lax


def power_iteration(A, num_steps):
    """num_steps of power iteration from the normalised ones vector; returns (eigenvalue, v)."""
    def body(i, v):
        w = A @ v
        return w / jnp.linalg.norm(w)

    v = lax.fori_loop(0, num_steps, body, jnp.ones(A.shape[0]))
    return v @ A @ v, v
