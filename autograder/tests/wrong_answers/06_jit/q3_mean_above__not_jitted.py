# expect: mean_above is a plain function, not a jitted function
# Sharp bit: the decorator removed so that boolean-mask indexing works eagerly
def mean_above(x, threshold):
    """Mean of the entries of x strictly greater than threshold; 0.0 when there are none."""
    above = x[x > threshold]
    return jnp.mean(above) if above.size else jnp.float32(0.0)
