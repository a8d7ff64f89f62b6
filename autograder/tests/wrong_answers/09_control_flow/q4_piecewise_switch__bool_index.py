# expect: Hint: `lax.switch` picks a branch by an integer index, not a boolean
# Sharp bit: adding booleans gives a boolean, and lax.switch refuses a boolean index
import jax.numpy as jnp
from jax import lax


def piecewise(x):
    """x/(1-x) for x < 0, sqrt(x) for 0 <= x < 4, 2 + log(x/4) for x >= 4."""
    x = jnp.asarray(x)
    index = (x >= 0) + (x >= 4)
    pieces = [lambda x: x / (1 - x), jnp.sqrt, lambda x: 2 + jnp.log(x / 4)]
    return lax.switch(index, pieces, x)
