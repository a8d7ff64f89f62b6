# expect: if the function returns a pair `(loss, extras)`, pass `has_aux=True`
# Sharp bit: forgot has_aux (value_and_grad needs a scalar output, and loss_fn returns a pair)
def loss_fn(params, x, y):
    """(mean softmax cross-entropy, accuracy) of the model on the batch (x, y)."""
    logits = predict(params, x)
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    one_hot = jax.nn.one_hot(y, logits.shape[-1])
    loss = -jnp.mean(jnp.sum(one_hot * log_probs, axis=-1))
    accuracy = jnp.mean(jnp.argmax(logits, axis=-1) == y)
    return loss, accuracy


def loss_and_grad(params, x, y):
    """((loss, accuracy), gradient of the loss with respect to params)."""
    return jax.value_and_grad(loss_fn)(params, x, y)
