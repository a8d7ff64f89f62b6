# expect: it loops over the batch in Python. Use `jax.vmap`
# Sharp bit: a Python loop where vmap was asked (right numbers, but the program grows with the batch)
import jax
import jax.numpy as jnp


def loss_one(params, x, y):
    """The cross-entropy of the logistic model on one point x (d,) with label y (a scalar)."""
    score = x @ params["w"] + params["b"]
    return -(y * jax.nn.log_sigmoid(score) + (1 - y) * jax.nn.log_sigmoid(-score))


def per_example_losses(params, xs, ys):
    return jnp.stack([loss_one(params, x, y) for x, y in zip(xs, ys, strict=True)])
