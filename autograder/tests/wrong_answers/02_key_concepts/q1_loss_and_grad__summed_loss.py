# expect: It is n times the cross-entropy, the sum over the points: the loss is their mean.
# diagnosis: It is n times the cross-entropy, the sum over the points: the loss is their mean.
# A summed cross-entropy where the mean was asked: the value and its gradient n times too large
import jax
import jax.numpy as jnp


def loss(params, xs, ys):
    """The mean cross-entropy of the logistic model on points xs (n, d) with labels ys (n,)."""
    scores = xs @ params["w"] + params["b"]
    return -jnp.mean(ys * jax.nn.log_sigmoid(scores)
                     + (1 - ys) * jax.nn.log_sigmoid(-scores))


def loss_and_grad(params, xs, ys, l2):
    def total(p):
        return loss(p, xs, ys) * xs.shape[0] + l2 * jnp.sum(p["w"] ** 2)

    return jax.value_and_grad(total)(params)
