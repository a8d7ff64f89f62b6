# expect: is a plain function, not a jitted function
# Eager: no compile per call, but every operation dispatched from Python on its own
def build_tempered_softmax():
    """Return a jitted tempered_softmax(logits, temperature), compiled once per logits shape."""
    def tempered_softmax(logits, temperature):
        return jax.nn.softmax(logits / temperature, axis=-1)

    return tempered_softmax
