# expect: calls with new temperatures compiled 3 new program(s)
# Jitted once, but the temperature marked static: one compile per temperature
def build_tempered_softmax():
    """Return a jitted tempered_softmax(logits, temperature), compiled once per logits shape."""
    def tempered_softmax(logits, temperature):
        return jax.nn.softmax(logits / temperature, axis=-1)

    return jax.jit(tempered_softmax, static_argnames="temperature")
