# expect: exp overflowed (or every exp underflowed to 0) in float32
# diagnosis: exp overflowed (or every exp underflowed to 0) in float32
# Mistake: shifting by the mean: entries far above the mean still overflow
def log_softmax(z):
    """log(softmax(z)) for a 1-D float32 array z, without overflow for large entries."""
    m = jnp.mean(z)
    return z - m - jnp.log(jnp.sum(jnp.exp(z - m)))
