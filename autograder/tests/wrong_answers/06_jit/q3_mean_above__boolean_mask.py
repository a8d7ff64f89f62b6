# expect: Boolean-mask indexing gives a shape that depends on the data
# Sharp bit: boolean-mask indexing under jit (NonConcreteBooleanIndexError)
@jax.jit
def mean_above(x, threshold):
    """Mean of the entries of x strictly greater than threshold; 0.0 when there are none."""
    return jnp.mean(x[x > threshold])
