# expect: Hint: `jax.grad` differentiates with respect to float inputs
# Sharp bit: integer inputs, jnp.arange(n) is int32 and grad only accepts floats
import jax
import jax.numpy as jnp


def derivative_table(f, n):
    """Return [f'(0), f'(1), ..., f'(n-1)] as a float array."""
    return jax.vmap(jax.grad(f))(jnp.arange(n))
