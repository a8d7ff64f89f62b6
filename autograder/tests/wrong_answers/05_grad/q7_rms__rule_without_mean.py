# expect: The rule gives 4 times the derivative: the rule forgets the mean's 1 / d
# diagnosis: The rule gives 4 times the derivative: the rule forgets the mean's 1 / d
# The rule's scale is wrong: sum(x * x_dot) / rms(x), without the mean's 1 / d
import jax
import jax.numpy as jnp


@jax.custom_jvp
def rms(x):
    """sqrt(mean(x**2)) over the last axis: shape x.shape[:-1]."""
    return jnp.sqrt(jnp.mean(x**2, axis=-1))


@rms.defjvp
def rms_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    r = rms(x)
    return r, jnp.sum(x * x_dot, axis=-1) / jnp.where(r > 0, r, 1.0)
