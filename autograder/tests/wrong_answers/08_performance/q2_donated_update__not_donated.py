# expect: compiled program does not donate params
# Forgot to donate: right values, but the old and the new parameters are both alive
def build_update():
    """A jitted update(params, grads, lr) -> params - lr * grads, leaf by leaf, params donated."""
    def update(params, grads, lr):
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)

    return jax.jit(update)
