# expect: `jax.grad` needs a function that returns one number
# Sharp bit: grad of a vector-valued call (no vmap), so the output is not a scalar
import jax
import jax.numpy as jnp


def derivative_table(f, n):
    """Return [f'(0), f'(1), ..., f'(n-1)] as a float array."""
    return jax.grad(f)(jnp.arange(n, dtype=jnp.float32))
