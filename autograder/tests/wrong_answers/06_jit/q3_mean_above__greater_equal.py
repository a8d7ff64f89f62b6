# expect: entries equal to the threshold do not count (strictly greater, x > threshold)
# diagnosis: entries equal to the threshold do not count (strictly greater, x > threshold)
# Sharp bit: >= where "strictly greater" was asked (entries equal to the threshold counted)
@jax.jit
def mean_above(x, threshold):
    """Mean of the entries of x strictly greater than threshold; 0.0 when there are none."""
    above = x >= threshold
    count = jnp.sum(above)
    return jnp.where(count > 0, jnp.sum(x, where=above) / jnp.maximum(count, 1), 0.0)
