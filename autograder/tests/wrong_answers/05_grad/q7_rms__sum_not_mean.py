# expect: It is the norm sqrt(sum(x**2)), sqrt(d) times the RMS
# diagnosis: It is the norm sqrt(sum(x**2)), sqrt(d) times the RMS
# The rule is right but the value is not: the squares summed instead of averaged
import jax
import jax.numpy as jnp


@jax.custom_jvp
def rms(x):
    """sqrt(mean(x**2)) over the last axis: shape x.shape[:-1]."""
    return jnp.sqrt(jnp.sum(x**2, axis=-1))


@rms.defjvp
def rms_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    r = jnp.sqrt(jnp.mean(x**2, axis=-1))
    return rms(x), jnp.sum(x * x_dot, axis=-1) / (x.shape[-1] * jnp.where(r > 0, r, 1.0))
