# expect: rms must work in forward mode too (jax.jvp, check_grads's 'fwd' mode)
# A custom_vjp rule: reverse mode is right, but forward mode (jax.jvp) raises
import jax
import jax.numpy as jnp


@jax.custom_vjp
def rms(x):
    """sqrt(mean(x**2)) over the last axis: shape x.shape[:-1]."""
    return jnp.sqrt(jnp.mean(x**2, axis=-1))


def rms_fwd(x):
    return rms(x), x


def rms_bwd(x, g):
    r = jnp.sqrt(jnp.mean(x**2, axis=-1))
    scale = g / (x.shape[-1] * jnp.where(r > 0, r, 1.0))
    return (scale[..., None] * x,)


rms.defvjp(rms_fwd, rms_bwd)
