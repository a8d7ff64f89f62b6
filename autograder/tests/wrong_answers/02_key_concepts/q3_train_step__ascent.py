# expect: It moved along the gradient, uphill: a descent step subtracts lr * g.
# diagnosis: It moved along the gradient, uphill: a descent step subtracts lr * g.
# A step along the gradient (ascent) where descent was asked
import jax
import jax.numpy as jnp


def loss(params, xs, ys):
    """The mean cross-entropy of the logistic model on points xs (n, d) with labels ys (n,)."""
    scores = xs @ params["w"] + params["b"]
    return -jnp.mean(ys * jax.nn.log_sigmoid(scores)
                     + (1 - ys) * jax.nn.log_sigmoid(-scores))


def make_train_step():
    def step(params, xs, ys, lr):
        value, grads = jax.value_and_grad(loss)(params, xs, ys)
        return jax.tree.map(lambda p, g: p + lr * g, params, grads), value

    return jax.jit(step)
