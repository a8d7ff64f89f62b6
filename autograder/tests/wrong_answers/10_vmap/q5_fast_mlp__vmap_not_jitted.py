# expect: the function make_fast_mlp() returns is a plain function, not a jitted function
# Sharp bit: unjitted function handed in as jitted (vmap alone runs op by op)
import jax
import jax.numpy as jnp


def mlp(params, x):
    """One example: x of shape (16,) -> shape (4,)."""
    hidden = jnp.tanh(params["w1"] @ x + params["b1"])
    return params["w2"] @ hidden + params["b2"]


def make_fast_mlp():
    return jax.vmap(mlp, in_axes=(None, 0))
