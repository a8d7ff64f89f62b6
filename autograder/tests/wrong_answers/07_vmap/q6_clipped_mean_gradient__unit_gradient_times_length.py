# expect: Case: an example whose gradient is all zeros
# Sharp bit: each gradient divided by its norm, then scaled to the clipped length: 0 / 0 = NaN for a zero gradient
import jax
import jax.numpy as jnp


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def clipped_mean_gradient(params, xs, ys, max_norm):
    def clipped_grad(p, x, y):
        g = jax.grad(loss)(p, x, y)
        norm = jnp.sqrt(jnp.sum(g["w"] ** 2) + g["b"] ** 2)
        return jax.tree.map(lambda leaf: leaf / norm * jnp.minimum(norm, max_norm), g)

    grads = jax.vmap(clipped_grad, in_axes=(None, 0, 0))(params, xs, ys)
    return jax.tree.map(lambda leaf: jnp.mean(leaf, axis=0), grads)
