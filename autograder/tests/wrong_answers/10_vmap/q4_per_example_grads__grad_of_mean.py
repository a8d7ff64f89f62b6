# expect: It is the gradient of the mean loss, one gradient for the whole batch
# Sharp bit: grad of the mean loss is ONE gradient (params' shapes), not one per example
import jax
import jax.numpy as jnp


def loss(params, x, y):
    """Squared error of a linear model on one example: x of shape (d,), y a scalar."""
    return 0.5 * (params["w"] @ x + params["b"] - y) ** 2


def per_example_grads(params, xs, ys):
    def mean_loss(p):
        return jnp.mean(jax.vmap(loss, in_axes=(None, 0, 0))(p, xs, ys))

    return jax.grad(mean_loss)(params)
