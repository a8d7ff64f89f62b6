# expect: NaN where 0 was expected; 1 of 1 entries are NaN. The mean of no entries is 0 / 0
# diagnosis: The mean of no entries is 0 / 0
# Sharp bit: mean over an empty mask is 0/0 = NaN under jit (no error, just NaN)
@jax.jit
def mean_above(x, threshold):
    """Mean of the entries of x strictly greater than threshold; 0.0 when there are none."""
    return jnp.mean(x, where=x > threshold)
