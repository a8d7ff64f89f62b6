# expect: compiled program does not donate params
# Donated the wrong argument: grads (position 1) instead of params (position 0)
def build_update():
    """A jitted update(params, grads, lr) -> params - lr * grads, leaf by leaf, params donated."""
    def update(params, grads, lr):
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)

    return jax.jit(update, donate_argnums=1)
