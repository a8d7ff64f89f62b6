# expect: it loops over the batch in Python. Use `jax.vmap` so the program stays the same size
# Sharp bit: Python loop where vmap was asked (one gradient per example, traced one by one)
def per_example_grad_norms(params, x, y):
    """(batch,) norms of each example's own loss gradient over all parameters."""

    def example_loss(p, x_one, y_one):
        return loss_fn(p, x_one[None], y_one[None])[0]

    norms = []
    for i in range(x.shape[0]):
        g = jax.grad(example_loss)(params, x[i], y[i])
        norms.append(jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(g))))
    return jnp.stack(norms)
