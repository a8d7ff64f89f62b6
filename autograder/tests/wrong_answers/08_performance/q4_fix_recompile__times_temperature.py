# expect: tempered_softmax(logits of shape (4, 6), 2.0) has the right shape (4, 6) but wrong values
# diagnosis: none (the question's checks know no mistake that gives this value yet)
# Compiled once, but multiplies by the temperature instead of dividing by it
def build_tempered_softmax():
    """Return a jitted tempered_softmax(logits, temperature), compiled once per logits shape."""
    def tempered_softmax(logits, temperature):
        return jax.nn.softmax(logits * temperature, axis=-1)

    return jax.jit(tempered_softmax)
