# expect: It counts 1 for each point's distance to itself
# diagnosis: It counts 1 for each point's distance to itself
# Mistake: half of the double-where trick: the safe input 1.0 reaches the result as a distance of 1
def spread(x):
    """spread_naive(x), with a gradient free of NaN (0 from pairs of points at one place)."""
    diff = x[:, None, :] - x[None, :, :]
    squared = jnp.sum(diff**2, axis=-1)
    dist = jnp.sqrt(jnp.where(squared > 0, squared, 1.0))
    n = x.shape[0]
    return jnp.sum(dist) / (n * (n - 1))
