# expect: log with jax.debug.print("norm: {}", norm)
# Sharp bit: logging dropped instead of moved to jax.debug.print
import jax.numpy as jnp


def normalise(x):
    return x / jnp.linalg.norm(x)
