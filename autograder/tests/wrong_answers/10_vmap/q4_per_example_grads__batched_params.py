# expect: Hint: `vmap` was asked to map a value that has no axis there (a scalar, often a parameter such as the bias)
# Sharp bit: default in_axes=0 batches params as well (the scalar "b" has no axis 0)
import jax


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def per_example_grads(params, xs, ys):
    return jax.vmap(jax.grad(loss))(params, xs, ys)
