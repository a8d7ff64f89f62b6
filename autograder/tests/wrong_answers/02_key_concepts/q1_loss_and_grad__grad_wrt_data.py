# expect: differentiate with respect to params, the first argument (argnums=0).
# Sharp bit: value_and_grad differentiates the argument argnums names; here the points, not params
import jax
import jax.numpy as jnp


def loss(params, xs, ys):
    """The mean cross-entropy of the logistic model on points xs (n, d) with labels ys (n,)."""
    scores = xs @ params["w"] + params["b"]
    return -jnp.mean(ys * jax.nn.log_sigmoid(scores)
                     + (1 - ys) * jax.nn.log_sigmoid(-scores))


def loss_and_grad(params, xs, ys, l2):
    def penalised(params, xs):
        return loss(params, xs, ys) + l2 * jnp.sum(params["w"] ** 2)

    return jax.value_and_grad(penalised, argnums=1)(params, xs)
