# expect: new learning rates compiled 3 new program(s): pass lr as an ordinary (traced) argument
# Donated, but lr marked static: one compile per learning rate
def build_update():
    """A jitted update(params, grads, lr) -> params - lr * grads, leaf by leaf, params donated."""
    def update(params, grads, lr):
        return jax.tree.map(lambda p, g: p - lr * g, params, grads)

    return jax.jit(update, donate_argnums=0, static_argnums=2)
