# expect: It matches clipping the gradient of the mean loss: clip each example's gradient first, then average
# diagnosis: It matches clipping the gradient of the mean loss: clip each example's gradient first, then average
# Sharp bit: grad of the mean loss, then clipped: one batch gradient clipped, not each example's
import jax
import jax.numpy as jnp


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def clipped_mean_gradient(params, xs, ys, max_norm):
    def mean_loss(p):
        return jnp.mean(jax.vmap(loss, in_axes=(None, 0, 0))(p, xs, ys))

    g = jax.grad(mean_loss)(params)
    norm = jnp.sqrt(jnp.sum(g["w"] ** 2) + g["b"] ** 2)
    scale = jnp.minimum(1.0, max_norm / norm)
    return jax.tree.map(lambda leaf: leaf * scale, g)
