# expect: It is NaN on the rows of zeros, as plain autodiff of sqrt gives there
# diagnosis: It is NaN on the rows of zeros, as plain autodiff of sqrt gives there
# No custom rule: plain autodiff of sqrt(mean(x**2)) is 0 / 0 = NaN on a row of zeros
import jax.numpy as jnp


def rms(x):
    """sqrt(mean(x**2)) over the last axis: shape x.shape[:-1]."""
    return jnp.sqrt(jnp.mean(x**2, axis=-1))
