# expect: it loops over the batch in Python. Use `jax.vmap`
# Sharp bit: a Python loop over the points inside jit (right numbers, but the program grows with the batch)
import jax
import jax.numpy as jnp


def loss_one(params, x, y):
    """The cross-entropy of the logistic model on one point x (d,) with label y (a scalar)."""
    score = x @ params["w"] + params["b"]
    return -(y * jax.nn.log_sigmoid(score) + (1 - y) * jax.nn.log_sigmoid(-score))


@jax.jit
def grad_norms(params, xs, ys):
    norms = []
    for x, y in zip(xs, ys, strict=True):
        g = jax.grad(loss_one)(params, x, y)
        norms.append(jnp.sqrt(jnp.sum(g["w"] ** 2) + g["b"] ** 2))
    return jnp.stack(norms)
