# expect: has the wrong shape: expected shape (6,), got shape ().
# The mean loss where one loss per point was asked
import jax
import jax.numpy as jnp


def loss_one(params, x, y):
    """The cross-entropy of the logistic model on one point x (d,) with label y (a scalar)."""
    score = x @ params["w"] + params["b"]
    return -(y * jax.nn.log_sigmoid(score) + (1 - y) * jax.nn.log_sigmoid(-score))


def per_example_losses(params, xs, ys):
    return jnp.mean(jax.vmap(loss_one, in_axes=(None, 0, 0))(params, xs, ys))
