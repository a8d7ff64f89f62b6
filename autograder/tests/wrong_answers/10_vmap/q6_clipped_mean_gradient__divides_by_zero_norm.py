# expect: NaN
# diagnosis: none (the question's checks know no mistake that gives this value yet)
# Sharp bit: rescaling by max_norm / norm divides by zero when an example's gradient is zero
import jax
import jax.numpy as jnp


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def clipped_mean_gradient(params, xs, ys, max_norm):
    grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
    norm = jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
    factor = jnp.minimum(norm, max_norm) / norm  # 0 / 0 for a zero gradient
    return {
        "w": jnp.mean(grads["w"] * factor[:, None], axis=0),
        "b": jnp.mean(grads["b"] * factor),
    }
