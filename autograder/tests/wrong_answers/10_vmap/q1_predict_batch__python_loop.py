# expect: it loops over the batch in Python. Use `jax.vmap` so the program stays the same size
# Sharp bit: Python loop where vmap was asked (right numbers, but the program grows with the batch)
import jax.numpy as jnp


def predict(params, x):
    """One example: x of shape (d_in,) -> shape (d_out,)."""
    return jnp.tanh(params["w"] @ x + params["b"])


def predict_batch(params, xs):
    return jnp.stack([predict(params, x) for x in xs])
