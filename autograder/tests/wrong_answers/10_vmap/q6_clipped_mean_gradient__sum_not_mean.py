# expect: It matches the sum over the batch: return the mean of the clipped gradients
# diagnosis: It matches the sum over the batch: return the mean of the clipped gradients
# Sharp bit: summing over the batch instead of taking the mean (n times too large)
import jax
import jax.numpy as jnp


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def clipped_mean_gradient(params, xs, ys, max_norm):
    grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
    norms = jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
    scale = jnp.minimum(1.0, max_norm / norms)
    return {"w": jnp.sum(grads["w"] * scale[:, None], axis=0), "b": jnp.sum(grads["b"] * scale)}
