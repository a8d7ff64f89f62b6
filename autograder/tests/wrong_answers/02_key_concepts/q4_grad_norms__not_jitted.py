# expect: grad_norms is a plain function, not a jitted function.
# Sharp bit: the @jax.jit decorator removed (it runs op by op)
import jax
import jax.numpy as jnp


def loss_one(params, x, y):
    """The cross-entropy of the logistic model on one point x (d,) with label y (a scalar)."""
    score = x @ params["w"] + params["b"]
    return -(y * jax.nn.log_sigmoid(score) + (1 - y) * jax.nn.log_sigmoid(-score))


def grad_norms(params, xs, ys):
    grads = jax.vmap(jax.grad(loss_one), in_axes=(None, 0, 0))(params, xs, ys)
    return jnp.sqrt(jnp.sum(grads["w"] ** 2, axis=1) + grads["b"] ** 2)
