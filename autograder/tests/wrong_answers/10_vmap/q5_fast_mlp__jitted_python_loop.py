# expect: it loops over the batch in Python. Use `jax.vmap`
# Sharp bit: Python loop inside jit: unrolled into one op per example (compile time grows with n)
import jax
import jax.numpy as jnp


def mlp(params, x):
    """One example: x of shape (16,) -> shape (4,)."""
    hidden = jnp.tanh(params["w1"] @ x + params["b1"])
    return params["w2"] @ hidden + params["b2"]


def make_fast_mlp():
    def looped(params, xs):
        return jnp.stack([mlp(params, x) for x in xs])

    return jax.jit(looped)
