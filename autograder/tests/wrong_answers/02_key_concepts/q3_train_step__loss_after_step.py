# expect: It is the loss after the step: return the loss at the parameters given
# diagnosis: It is the loss after the step: return the loss at the parameters given
# The loss at the new parameters where the loss before the step was asked
import jax
import jax.numpy as jnp


def loss(params, xs, ys):
    """The mean cross-entropy of the logistic model on points xs (n, d) with labels ys (n,)."""
    scores = xs @ params["w"] + params["b"]
    return -jnp.mean(ys * jax.nn.log_sigmoid(scores)
                     + (1 - ys) * jax.nn.log_sigmoid(-scores))


def make_train_step():
    def step(params, xs, ys, lr):
        grads = jax.grad(loss)(params, xs, ys)
        new = jax.tree.map(lambda p, g: p - lr * g, params, grads)
        return new, loss(new, xs, ys)

    return jax.jit(step)
