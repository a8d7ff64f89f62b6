# expect: Hint: A matrix product got operands whose inner dimensions differ
# Sharp bit: wrong axis: in_axes=1 maps over the features of xs, not its examples
import jax
import jax.numpy as jnp


def predict(params, x):
    """One example: x of shape (d_in,) -> shape (d_out,)."""
    return jnp.tanh(params["w"] @ x + params["b"])


def predict_batch(params, xs):
    return jax.vmap(predict, in_axes=(None, 1))(params, xs)
