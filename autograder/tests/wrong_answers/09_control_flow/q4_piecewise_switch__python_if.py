# expect: Branch with `jax.lax.cond` or select with `jnp.where`
# hint: `lax.cond` runs and differentiates only the branch it picks
# Sharp bit: Python if on a traced value (TracerBoolConversionError under jit)
import jax.numpy as jnp


def piecewise(x):
    """x/(1-x) for x < 0, sqrt(x) for 0 <= x < 4, 2 + log(x/4) for x >= 4."""
    if x < 0:
        return x / (1 - x)
    if x < 4:
        return jnp.sqrt(x)
    return 2 + jnp.log(x / 4)
