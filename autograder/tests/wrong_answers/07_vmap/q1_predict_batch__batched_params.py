# Sharp bit: default in_axes=0 batches the parameters too (shared params need None)
import jax
import jax.numpy as jnp


def predict(params, x):
    """One example: x of shape (d_in,) -> shape (d_out,)."""
    return jnp.tanh(params["w"] @ x + params["b"])


def predict_batch(params, xs):
    return jax.vmap(predict)(params, xs)
