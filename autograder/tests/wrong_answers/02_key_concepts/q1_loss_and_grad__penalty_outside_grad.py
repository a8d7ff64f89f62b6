# expect: It is the gradient of the cross-entropy alone: the penalty must be inside the function
# diagnosis: It is the gradient of the cross-entropy alone: the penalty must be inside the function
# The penalty added to the value after differentiating: its gradient 2 * l2 * w is missing
import jax
import jax.numpy as jnp


def loss(params, xs, ys):
    """The mean cross-entropy of the logistic model on points xs (n, d) with labels ys (n,)."""
    scores = xs @ params["w"] + params["b"]
    return -jnp.mean(ys * jax.nn.log_sigmoid(scores)
                     + (1 - ys) * jax.nn.log_sigmoid(-scores))


def loss_and_grad(params, xs, ys, l2):
    value, grads = jax.value_and_grad(loss)(params, xs, ys)
    return value + l2 * jnp.sum(params["w"] ** 2), grads
