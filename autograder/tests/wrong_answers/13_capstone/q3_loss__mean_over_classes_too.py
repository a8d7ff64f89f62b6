# expect: It matches the loss divided by the number of classes
# diagnosis: It matches the loss divided by the number of classes
# Sharp bit: mean over the wrong axes (averaging over classes as well divides the loss by n_out)
def loss_fn(params, x, y):
    """(mean softmax cross-entropy, accuracy) of the model on the batch (x, y)."""
    logits = predict(params, x)
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    one_hot = jax.nn.one_hot(y, logits.shape[-1])
    loss = -jnp.mean(one_hot * log_probs)
    accuracy = jnp.mean(jnp.argmax(logits, axis=-1) == y)
    return loss, accuracy


def loss_and_grad(params, x, y):
    """((loss, accuracy), gradient of the loss with respect to params)."""
    return jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
