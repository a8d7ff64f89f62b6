# expect: has the wrong shape: expected shape (6,), got shape ().
# The mean probability where one probability per point was asked
import jax
import jax.numpy as jnp


def label_probabilities(params, xs_t, ys):
    def one(params, x, y):
        p = jax.nn.sigmoid(x @ params["w"] + params["b"])
        return y * p + (1 - y) * (1 - p)

    return jnp.mean(jax.vmap(one, in_axes=(None, 1, 0))(params, xs_t, ys))
