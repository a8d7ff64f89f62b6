# expect: It matches clipping each leaf on its own: an example's norm is over its whole gradient
# diagnosis: It matches clipping each leaf on its own: an example's norm is over its whole gradient
# Sharp bit: wrong axis of the norm: each leaf clipped on its own instead of the whole gradient
import jax
import jax.numpy as jnp


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def clipped_mean_gradient(params, xs, ys, max_norm):
    grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
    w_scale = jnp.minimum(1.0, max_norm / jnp.linalg.norm(grads["w"], axis=1))
    b_scale = jnp.minimum(1.0, max_norm / jnp.abs(grads["b"]))
    return {
        "w": jnp.mean(grads["w"] * w_scale[:, None], axis=0),
        "b": jnp.mean(grads["b"] * b_scale),
    }
