# expect: Hint: `jax.grad` needs a function that returns one number. Reduce the output
# Sharp bit: non-scalar loss (forgot the mean), so grad refuses a vector output
import jax


def loss_and_grad(params, x, y):
    """Return ((mean squared error, predictions), gradient w.r.t. params) of a linear model."""
    def loss_fn(params):
        preds = x @ params["w"] + params["b"]
        return (preds - y) ** 2, preds

    return jax.value_and_grad(loss_fn, has_aux=True)(params)
