# expect: It matches -(the true class's logit): normalise the logits with jax.nn.log_softmax first
# diagnosis: It matches -(the true class's logit): normalise the logits with jax.nn.log_softmax first
# Sharp bit: forgot the softmax normalisation (-logit of the true class is not a cross-entropy)
def loss_fn(params, x, y):
    """(mean softmax cross-entropy, accuracy) of the model on the batch (x, y)."""
    logits = predict(params, x)
    one_hot = jax.nn.one_hot(y, logits.shape[-1])
    loss = -jnp.mean(jnp.sum(one_hot * logits, axis=-1))
    accuracy = jnp.mean(jnp.argmax(logits, axis=-1) == y)
    return loss, accuracy


def loss_and_grad(params, x, y):
    """((loss, accuracy), gradient of the loss with respect to params)."""
    return jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
