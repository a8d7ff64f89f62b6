# expect: Hint: A traced value was used where Python needs a concrete int (an index, a range, a shape). Use `jax.lax.dynamic_slice`, `lax.fori_loop`
# Sharp bit: Python range() over a traced trip count (TracerIntegerConversionError under jit)
import jax.numpy as jnp


def power_iteration(A, num_steps):
    """num_steps of power iteration from the normalised ones vector; returns (eigenvalue, v)."""
    n = A.shape[0]
    v = jnp.ones(n) / jnp.sqrt(n)
    for _ in range(num_steps):
        w = A @ v
        v = w / jnp.linalg.norm(w)
    return v @ A @ v, v
