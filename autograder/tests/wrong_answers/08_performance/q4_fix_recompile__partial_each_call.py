# expect: calls with new temperatures compiled 3 new program(s)
# The slow function handed back as it is: a jax.jit of a new functools.partial on every call
def build_tempered_softmax():
    """Return a jitted tempered_softmax(logits, temperature), compiled once per logits shape."""
    return tempered_softmax_slow
