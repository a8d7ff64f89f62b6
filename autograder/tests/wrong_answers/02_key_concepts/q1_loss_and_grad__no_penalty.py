# expect: It is the cross-entropy alone: add the penalty l2 * sum(w ** 2) to the value.
# diagnosis: It is the cross-entropy alone: add the penalty l2 * sum(w ** 2) to the value.
# The chapter's value_and_grad(loss) transcribed: l2 is ignored
import jax
import jax.numpy as jnp


def loss(params, xs, ys):
    """The mean cross-entropy of the logistic model on points xs (n, d) with labels ys (n,)."""
    scores = xs @ params["w"] + params["b"]
    return -jnp.mean(ys * jax.nn.log_sigmoid(scores)
                     + (1 - ys) * jax.nn.log_sigmoid(-scores))


def loss_and_grad(params, xs, ys, l2):
    return jax.value_and_grad(loss)(params, xs, ys)
