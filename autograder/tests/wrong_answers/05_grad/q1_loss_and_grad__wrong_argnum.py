# expect: grads should be a dict shaped like params (keys 'b' and 'w'), got an array of shape (4, 3): take the gradient with respect to params (argnums=0)
# Sharp bit: differentiates with respect to the wrong argument (the inputs x, not the params)
import jax
import jax.numpy as jnp


def loss_and_grad(params, x, y):
    """Return ((mean squared error, predictions), gradient w.r.t. params) of a linear model."""
    def loss_fn(params, x, y):
        preds = x @ params["w"] + params["b"]
        return jnp.mean((preds - y) ** 2), preds

    return jax.value_and_grad(loss_fn, argnums=1, has_aux=True)(params, x, y)
