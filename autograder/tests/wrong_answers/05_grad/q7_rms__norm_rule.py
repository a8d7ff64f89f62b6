# expect: The rule gives 2 times the derivative: that is the norm's rule from the chapter
# diagnosis: The rule gives 2 times the derivative: that is the norm's rule from the chapter
# The chapter's safe_norm rule transcribed: x / norm(x) is sqrt(d) times the RMS's derivative
import jax
import jax.numpy as jnp


@jax.custom_jvp
def rms(x):
    """sqrt(mean(x**2)) over the last axis: shape x.shape[:-1]."""
    return jnp.sqrt(jnp.mean(x**2, axis=-1))


@rms.defjvp
def rms_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    n = jnp.sqrt(jnp.sum(x**2, axis=-1))
    return rms(x), jnp.sum(x * x_dot, axis=-1) / jnp.where(n > 0, n, 1.0)
