# expect: update(params, grads, 0.1)['b'] has the right shape (4,) but wrong values
# diagnosis: none (the question's checks know no mistake that gives this value yet)
# Gradient ascent: adds lr * grads instead of subtracting it
def build_update():
    """A jitted update(params, grads, lr) -> params - lr * grads, leaf by leaf, params donated."""
    def update(params, grads, lr):
        return jax.tree.map(lambda p, g: p + lr * g, params, grads)

    return jax.jit(update, donate_argnums=0)
