# expect: Hint: A NaN gradient where the function's value is fine usually comes from `jnp.where`
# diagnosis: Hint: A NaN gradient where the function's value is fine usually comes from `jnp.where`
# Sharp bit: jnp.where computes every piece; the unused NaN pieces poison the gradient
import jax.numpy as jnp


def piecewise(x):
    """x/(1-x) for x < 0, sqrt(x) for 0 <= x < 4, 2 + log(x/4) for x >= 4."""
    return jnp.where(x < 0, x / (1 - x), jnp.where(x < 4, jnp.sqrt(x), 2 + jnp.log(x / 4)))
