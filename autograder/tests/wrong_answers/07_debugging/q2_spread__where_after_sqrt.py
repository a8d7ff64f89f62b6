# expect: Hint: A NaN gradient where the function's value is fine
# diagnosis: Use the double-where trick
# Sharp bit: jnp.where after the square root picks 0, but the gradient still goes through sqrt(0)
def spread(x):
    """spread_naive(x), with a gradient free of NaN (0 from pairs of points at one place)."""
    diff = x[:, None, :] - x[None, :, :]
    squared = jnp.sum(diff**2, axis=-1)
    dist = jnp.where(squared > 0, jnp.sqrt(squared), 0.0)
    n = x.shape[0]
    return jnp.sum(dist) / (n * (n - 1))
