# expect: pass floats (e.g. `2.0`, not `2`; `jnp.arange(n, dtype=jnp.float32)`)
# Sharp bit: a Python loop passing Python ints from range(n) to grad (integer inputs, no vmap)
import jax
import jax.numpy as jnp


def derivative_table(f, n):
    """Return [f'(0), f'(1), ..., f'(n-1)] as a float array."""
    return jnp.array([jax.grad(f)(k) for k in range(n)])
