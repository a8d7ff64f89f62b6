# expect: it loops over the batch in Python. Use `jax.vmap` so the program stays the same size
# Sharp bit: Python loop where vmap was asked (right numbers, program grows with the batch)
import jax
import jax.numpy as jnp


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def per_example_grads(params, xs, ys):
    grads = [jax.grad(loss)(params, x, y) for x, y in zip(xs, ys, strict=True)]
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *grads)
