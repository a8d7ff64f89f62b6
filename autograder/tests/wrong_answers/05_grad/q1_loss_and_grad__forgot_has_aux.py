# expect: if the function returns a pair `(loss, extras)`, pass `has_aux=True`
# Sharp bit: forgot has_aux=True, so value_and_grad sees a (loss, preds) tuple, not a scalar
import jax
import jax.numpy as jnp


def loss_and_grad(params, x, y):
    """Return ((mean squared error, predictions), gradient w.r.t. params) of a linear model."""
    def loss_fn(params):
        preds = x @ params["w"] + params["b"]
        return jnp.mean((preds - y) ** 2), preds

    return jax.value_and_grad(loss_fn)(params)
