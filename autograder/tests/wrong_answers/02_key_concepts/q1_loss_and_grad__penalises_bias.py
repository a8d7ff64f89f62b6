# expect: It penalises the bias too: only params['w'] is penalised.
# diagnosis: It penalises the bias too: only params['w'] is penalised.
# The penalty summed over every parameter (jax.tree.map over params), the bias included
import jax
import jax.numpy as jnp


def loss(params, xs, ys):
    """The mean cross-entropy of the logistic model on points xs (n, d) with labels ys (n,)."""
    scores = xs @ params["w"] + params["b"]
    return -jnp.mean(ys * jax.nn.log_sigmoid(scores)
                     + (1 - ys) * jax.nn.log_sigmoid(-scores))


def loss_and_grad(params, xs, ys, l2):
    def penalised(p):
        squares = jax.tree.map(lambda leaf: jnp.sum(leaf**2), p)
        return loss(p, xs, ys) + l2 * (squares["w"] + squares["b"])

    return jax.value_and_grad(penalised)(params)
