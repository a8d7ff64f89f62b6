# expect: loss_and_grad should return a pair (value, grads)
# jax.grad where jax.value_and_grad was asked: the loss itself is missing
import jax
import jax.numpy as jnp


def loss(params, xs, ys):
    """The mean cross-entropy of the logistic model on points xs (n, d) with labels ys (n,)."""
    scores = xs @ params["w"] + params["b"]
    return -jnp.mean(ys * jax.nn.log_sigmoid(scores)
                     + (1 - ys) * jax.nn.log_sigmoid(-scores))


def loss_and_grad(params, xs, ys, l2):
    return jax.grad(lambda p: loss(p, xs, ys) + l2 * jnp.sum(p["w"] ** 2))(params)
