# expect: jax.lax.stop_gradient cut the slope off along with the problem
# diagnosis: jax.lax.stop_gradient cut the slope off along with the problem
# Mistake: jax.lax.stop_gradient around the distances: no NaN, and no gradient either
def spread(x):
    """spread_naive(x), with a gradient free of NaN (0 from pairs of points at one place)."""
    diff = x[:, None, :] - x[None, :, :]
    dist = jax.lax.stop_gradient(jnp.sqrt(jnp.sum(diff**2, axis=-1)))
    n = x.shape[0]
    return jnp.sum(dist) / (n * (n - 1))
