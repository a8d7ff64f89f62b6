# expect: Hint: A NaN gradient where the function's value is fine
# diagnosis: Use the double-where trick
# Mistake: the given code kept as it is: the square root at each point's zero distance to itself
def spread(x):
    """spread_naive(x), with a gradient free of NaN (0 from pairs of points at one place)."""
    diff = x[:, None, :] - x[None, :, :]
    dist = jnp.sqrt(jnp.sum(diff**2, axis=-1))
    n = x.shape[0]
    return jnp.sum(dist) / (n * (n - 1))
