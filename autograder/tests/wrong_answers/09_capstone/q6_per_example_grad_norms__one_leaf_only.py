# expect: It matches the norm of one leaf only (the output weights)
# Sharp bit: a pytree treated as one array (only the output weights enter the norm)
def per_example_grad_norms(params, x, y):
    """(batch,) norms of each example's own loss gradient over all parameters."""

    def example_loss(p, x_one, y_one):
        return loss_fn(p, x_one[None], y_one[None])[0]

    grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, x, y)
    w = grads["output"]["w"]
    return jnp.sqrt(jnp.sum(w.reshape(w.shape[0], -1) ** 2, axis=1))
