# expect: per_example_grads should return a dict shaped like params (keys 'b' and 'w'), got an array of shape (6, 3)
# Sharp bit: wrong argnums: differentiates with respect to x, not params
import jax


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def per_example_grads(params, xs, ys):
    return jax.vmap(jax.grad(loss, argnums=1), in_axes=(None, 0, 0))(params, xs, ys)
