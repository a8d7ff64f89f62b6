# expect: It matches the norm of the batch gradient, repeated
# Sharp bit: grad of the batch loss (the mean gradient's norm, repeated, is not per example)
def per_example_grad_norms(params, x, y):
    """(batch,) norms of each example's own loss gradient over all parameters."""
    grads = jax.grad(lambda p: loss_fn(p, x, y)[0])(params)
    norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(grads)))
    return jnp.full(x.shape[0], norm)
