# expect: It matches dividing by the size of x: the zeros put in by jnp.where count
# diagnosis: It matches dividing by the size of x: the zeros put in by jnp.where count
# Sharp bit: masking with jnp.where but dividing by the full size (zeros count in the mean)
@jax.jit
def mean_above(x, threshold):
    """Mean of the entries of x strictly greater than threshold; 0.0 when there are none."""
    return jnp.mean(jnp.where(x > threshold, x, 0.0))
