# expect: It matches the model without the ReLU: apply jax.nn.relu to the hidden layer
# diagnosis: It matches the model without the ReLU: apply jax.nn.relu to the hidden layer
# Sharp bit: forgot the nonlinearity (two stacked linear layers are just one linear map)
def predict_one(params, x):
    """Logits (n_out,) for one example x of shape (n_in,)."""
    hidden = x @ params["hidden"]["w"] + params["hidden"]["b"]
    return hidden @ params["output"]["w"] + params["output"]["b"]


def predict(params, xs):
    """Logits (batch, n_out) for xs of shape (batch, n_in), by vmapping predict_one."""
    return jax.vmap(predict_one, in_axes=(None, 0))(params, xs)
