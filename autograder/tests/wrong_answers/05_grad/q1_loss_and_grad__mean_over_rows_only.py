# expect: the loss is the mean over all n * k entries (jnp.mean with no axis)
# diagnosis: the loss is the mean over all n * k entries (jnp.mean with no axis)
# Sharp bit: wrong axis, averages over examples and then sums over outputs (mean over axis 0)
import jax
import jax.numpy as jnp


def loss_and_grad(params, x, y):
    """Return ((mean squared error, predictions), gradient w.r.t. params) of a linear model."""
    def loss_fn(params):
        preds = x @ params["w"] + params["b"]
        return jnp.sum(jnp.mean((preds - y) ** 2, axis=0)), preds

    return jax.value_and_grad(loss_fn, has_aux=True)(params)
