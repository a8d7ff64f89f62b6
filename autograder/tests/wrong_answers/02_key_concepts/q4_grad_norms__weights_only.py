# expect: has the right shape (7,) but wrong values
# diagnosis: none (the question's checks know no mistake that gives this value yet)
# The norm of the weights gradient alone where w and b together were asked
import jax
import jax.numpy as jnp


def loss_one(params, x, y):
    """The cross-entropy of the logistic model on one point x (d,) with label y (a scalar)."""
    score = x @ params["w"] + params["b"]
    return -(y * jax.nn.log_sigmoid(score) + (1 - y) * jax.nn.log_sigmoid(-score))


@jax.jit
def grad_norms(params, xs, ys):
    grads = jax.vmap(jax.grad(loss_one), in_axes=(None, 0, 0))(params, xs, ys)
    return jnp.linalg.norm(grads["w"], axis=1)
