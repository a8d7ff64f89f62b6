# expect: it loops over the batch in Python. Use `jax.vmap`
# Sharp bit: Python loop where vmap was asked (the traced program grows with the batch)
def predict_one(params, x):
    """Logits (n_out,) for one example x of shape (n_in,)."""
    hidden = jax.nn.relu(x @ params["hidden"]["w"] + params["hidden"]["b"])
    return hidden @ params["output"]["w"] + params["output"]["b"]


def predict(params, xs):
    """Logits (batch, n_out) for xs of shape (batch, n_in), by vmapping predict_one."""
    return jnp.stack([predict_one(params, x) for x in xs])
