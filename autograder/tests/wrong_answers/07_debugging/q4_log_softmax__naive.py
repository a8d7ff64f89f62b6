# expect: exp overflowed (or every exp underflowed to 0) in float32
# diagnosis: exp overflowed (or every exp underflowed to 0) in float32
# Mistake: the formula as it reads: exp(1000.0) is inf in float32
def log_softmax(z):
    """log(softmax(z)) for a 1-D float32 array z, without overflow for large entries."""
    return z - jnp.log(jnp.sum(jnp.exp(z)))
