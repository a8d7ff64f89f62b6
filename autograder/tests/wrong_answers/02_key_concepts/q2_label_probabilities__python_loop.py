# expect: it loops over the batch in Python. Use `jax.vmap`
# Sharp bit: a Python loop where vmap was asked (right numbers, but the program grows with the batch)
import jax
import jax.numpy as jnp


def label_probabilities(params, xs_t, ys):
    out = []
    for i in range(xs_t.shape[1]):
        p = jax.nn.sigmoid(xs_t[:, i] @ params["w"] + params["b"])
        out.append(ys[i] * p + (1 - ys[i]) * (1 - p))
    return jnp.stack(out)
