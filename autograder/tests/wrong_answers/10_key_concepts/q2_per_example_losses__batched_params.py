# expect: The parameters are shared by every point, so they are not batched
# Sharp bit: in_axes=0 batches the parameters too (the scalar bias has no axis to map)
import jax


def loss_one(params, x, y):
    """The cross-entropy of the logistic model on one point x (d,) with label y (a scalar)."""
    score = x @ params["w"] + params["b"]
    return -(y * jax.nn.log_sigmoid(score) + (1 - y) * jax.nn.log_sigmoid(-score))


def per_example_losses(params, xs, ys):
    return jax.vmap(loss_one)(params, xs, ys)
