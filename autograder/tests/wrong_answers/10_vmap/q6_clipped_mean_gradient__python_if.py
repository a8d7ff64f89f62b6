# expect: Hint: A Python `if`/`while`/`and`/`or` looked at a traced value inside vmap: there each value stands for a whole batch
# Sharp bit: Python if on a traced value inside vmap (TracerBoolConversionError)
import jax
import jax.numpy as jnp


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def clipped_mean_gradient(params, xs, ys, max_norm):
    def clipped_grad(p, x, y):
        g = jax.grad(loss)(p, x, y)
        norm = jnp.sqrt(jnp.sum(g["w"] ** 2) + g["b"] ** 2)
        if norm > max_norm:
            g = jax.tree.map(lambda leaf: leaf * max_norm / norm, g)
        return g

    grads = jax.vmap(clipped_grad, in_axes=(None, 0, 0))(params, xs, ys)
    return jax.tree.map(lambda leaf: jnp.mean(leaf, axis=0), grads)
