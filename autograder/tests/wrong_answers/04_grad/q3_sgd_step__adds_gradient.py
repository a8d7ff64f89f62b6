# expect: It matches p + lr * g: a descent step goes against the gradient, p - lr * g
# diagnosis: It matches p + lr * g: a descent step goes against the gradient, p - lr * g
# Sharp bit: the update adds the gradient (gradient ascent) instead of subtracting it
import jax


def sgd_step(params, grads, lr):
    """Return params - lr * grads, leaf by leaf, with the structure of params."""
    return jax.tree.map(lambda p, g: p + lr * g, params, grads)
