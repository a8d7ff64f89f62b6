# expect: Hint: A NaN gradient where the function's value is fine
# diagnosis: Use the double-where trick
# Sharp bit: jnp.nan_to_num cleans the value, which holds no NaN; the gradient's NaN comes from sqrt's slope
def spread(x):
    """spread_naive(x), with a gradient free of NaN (0 from pairs of points at one place)."""
    diff = x[:, None, :] - x[None, :, :]
    dist = jnp.nan_to_num(jnp.sqrt(jnp.sum(diff**2, axis=-1)))
    n = x.shape[0]
    return jnp.sum(dist) / (n * (n - 1))
