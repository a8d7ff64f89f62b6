# expect: Hint: The mapped axes of `vmap`'s arguments have different sizes: check `in_axes`, and use `None` for arguments that are shared
# Sharp bit: default in_axes=0 batches the parameters too (shared params need None)
import jax
import jax.numpy as jnp


def predict(params, x):
    """One example: x of shape (d_in,) -> shape (d_out,)."""
    return jnp.tanh(params["w"] @ x + params["b"])


def predict_batch(params, xs):
    return jax.vmap(predict)(params, xs)
