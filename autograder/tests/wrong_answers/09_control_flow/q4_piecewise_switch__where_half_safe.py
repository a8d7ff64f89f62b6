# expect: Use the double-where trick
# diagnosis: Use the double-where trick
# Sharp bit: the double-where trick applied to the square root only: the log piece still gives NaN gradients
import jax.numpy as jnp


def piecewise(x):
    """x/(1-x) for x < 0, sqrt(x) for 0 <= x < 4, 2 + log(x/4) for x >= 4."""
    x = jnp.asarray(x, dtype=jnp.float32)
    safe_for_sqrt = jnp.where(x >= 0, x, 1.0)
    return jnp.where(x < 0, x / (1 - x),
                     jnp.where(x < 4, jnp.sqrt(safe_for_sqrt), 2 + jnp.log(x / 4)))
