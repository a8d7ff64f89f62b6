# expect: Hint: A NaN gradient where the function's value is fine
# diagnosis: Use the double-where trick
# Mistake: only the diagonal is made safe: two different points at one place still give sqrt(0)
def spread(x):
    """spread_naive(x), with a gradient free of NaN (0 from pairs of points at one place)."""
    diff = x[:, None, :] - x[None, :, :]
    squared = jnp.sum(diff**2, axis=-1)
    n = x.shape[0]
    other = ~jnp.eye(n, dtype=bool)
    dist = jnp.where(other, jnp.sqrt(jnp.where(other, squared, 1.0)), 0.0)
    return jnp.sum(dist) / (n * (n - 1))
