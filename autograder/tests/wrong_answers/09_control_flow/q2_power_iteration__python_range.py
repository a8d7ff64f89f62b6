# expect: Hint: A Python loop `for ... in range(n)` needs `n` as a Python int while tracing
# hint: Loop with `lax.fori_loop(0, n, body, init)`, which takes a traced count
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
