# expect: Hint: An array (or a traced value) was passed as a static argument
# hint: leave it out of `static_argnames`
# Sharp bit: data marked static (every new threshold compiles a new program)
@partial(jax.jit, static_argnames="threshold")
def mean_above(x, threshold):
    """Mean of the entries of x strictly greater than threshold; 0.0 when there are none."""
    above = x > threshold
    count = jnp.sum(above)
    return jnp.where(count > 0, jnp.sum(x, where=above) / jnp.maximum(count, 1), 0.0)
