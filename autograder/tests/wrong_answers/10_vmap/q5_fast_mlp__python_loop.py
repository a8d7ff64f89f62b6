# expect: it loops over the batch in Python. Use `jax.vmap`
# Sharp bit: Python loop of jitted per-example calls where vmap was asked (slow: N dispatches)
import jax
import jax.numpy as jnp


def mlp(params, x):
    """One example: x of shape (16,) -> shape (4,)."""
    hidden = jnp.tanh(params["w1"] @ x + params["b1"])
    return params["w2"] @ hidden + params["b2"]


def make_fast_mlp():
    mlp_jit = jax.jit(mlp)

    def fast(params, xs):
        return jnp.stack([mlp_jit(params, x) for x in xs])

    return fast
