# expect: compiled 3 new program(s); a loop's steps should reuse the first one's.
# Sharp bit: a static learning rate compiles the step again for every new value
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
        return jax.tree.map(lambda p, g: p - lr * g, params, grads), value

    return jax.jit(step, static_argnames="lr")
