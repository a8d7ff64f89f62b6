# expect: use `None` for arguments that are shared rather than batched
# Sharp bit: default in_axes=0 batches the parameters too
import jax
import jax.numpy as jnp


def mlp(params, x):
    """One example: x of shape (16,) -> shape (4,)."""
    hidden = jnp.tanh(params["w1"] @ x + params["b1"])
    return params["w2"] @ hidden + params["b2"]


def make_fast_mlp():
    return jax.jit(jax.vmap(mlp))
