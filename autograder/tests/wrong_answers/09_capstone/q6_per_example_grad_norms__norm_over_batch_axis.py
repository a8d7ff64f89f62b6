# expect: It matches one norm over the whole batch
# Sharp bit: wrong axis (summing squares over every axis, the batch axis included)
def per_example_grad_norms(params, x, y):
    """(batch,) norms of each example's own loss gradient over all parameters."""

    def example_loss(p, x_one, y_one):
        return loss_fn(p, x_one[None], y_one[None])[0]

    grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, x, y)
    total = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(grads)))
    return jnp.full(x.shape[0], total)
