# expect: Every entry is off by the largest entry
# diagnosis: Every entry is off by the largest entry
# Mistake: the shift by the largest entry taken inside the exp and never added back
def log_softmax(z):
    """log(softmax(z)) for a 1-D float32 array z, without overflow for large entries."""
    m = jnp.max(z)
    return z - jnp.log(jnp.sum(jnp.exp(z - m)))
