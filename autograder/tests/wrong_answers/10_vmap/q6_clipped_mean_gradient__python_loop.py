# expect: it loops over the batch in Python
# Sharp bit: Python loop over the examples where vmap was asked (right numbers, program grows with the batch)
import jax
import jax.numpy as jnp


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def clipped_mean_gradient(params, xs, ys, max_norm):
    clipped = []
    for x, y in zip(xs, ys, strict=True):
        g = jax.grad(loss)(params, x, y)
        norm = jnp.sqrt(jnp.sum(g["w"] ** 2) + g["b"] ** 2)
        scale = jnp.minimum(1.0, max_norm / jnp.maximum(norm, 1e-12))
        clipped.append(jax.tree.map(lambda leaf, s=scale: leaf * s, g))
    return jax.tree.map(lambda *leaves: jnp.mean(jnp.stack(leaves), axis=0), *clipped)
