# expect: check `in_axes`, and use `None` for arguments that are shared rather than batched
# Sharp bit: wrong in_axes (vmap's default maps over the parameters as well as the examples)
def predict_one(params, x):
    """Logits (n_out,) for one example x of shape (n_in,)."""
    hidden = jax.nn.relu(x @ params["hidden"]["w"] + params["hidden"]["b"])
    return hidden @ params["output"]["w"] + params["output"]["b"]


def predict(params, xs):
    """Logits (batch, n_out) for xs of shape (batch, n_in), by vmapping predict_one."""
    return jax.vmap(predict_one)(params, xs)
