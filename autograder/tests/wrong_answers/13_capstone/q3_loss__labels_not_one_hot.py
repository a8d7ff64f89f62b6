# expect: It matches multiplying the log-probabilities by the integer labels
# diagnosis: It matches multiplying the log-probabilities by the integer labels
# Sharp bit: integer labels used as if they were one-hot rows (they broadcast, silently)
def loss_fn(params, x, y):
    """(mean softmax cross-entropy, accuracy) of the model on the batch (x, y)."""
    logits = predict(params, x)
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    loss = -jnp.mean(jnp.sum(y[:, None] * log_probs, axis=-1))
    accuracy = jnp.mean(jnp.argmax(logits, axis=-1) == y)
    return loss, accuracy


def loss_and_grad(params, x, y):
    """((loss, accuracy), gradient of the loss with respect to params)."""
    return jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
