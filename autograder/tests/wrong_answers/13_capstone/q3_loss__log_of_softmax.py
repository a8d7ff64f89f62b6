# expect: The loss is inf: jnp.log(jax.nn.softmax(z)) underflows to log(0) for large logits. Use jax.nn.log_softmax(z)
# diagnosis: The loss is inf: jnp.log(jax.nn.softmax(z)) underflows to log(0) for large logits. Use jax.nn.log_softmax(z)
# Sharp bit: log(softmax(z)) instead of log_softmax (underflows to log 0 = -inf for large logits)
def loss_fn(params, x, y):
    """(mean softmax cross-entropy, accuracy) of the model on the batch (x, y)."""
    logits = predict(params, x)
    log_probs = jnp.log(jax.nn.softmax(logits, axis=-1))
    one_hot = jax.nn.one_hot(y, logits.shape[-1])
    loss = -jnp.mean(jnp.sum(one_hot * log_probs, axis=-1))
    accuracy = jnp.mean(jnp.argmax(logits, axis=-1) == y)
    return loss, accuracy


def loss_and_grad(params, x, y):
    """((loss, accuracy), gradient of the loss with respect to params)."""
    return jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
