# expect: It decays only the leaves with exactly two axes: a stack of matrices
# diagnosis: It decays only the leaves with exactly two axes: a stack of matrices
# The rule tests ndim == 2, so a stack of matrices (three axes) is not decayed
import jax


def sgd_step(params, grads, lr, weight_decay):
    """One step: p - lr * (g + weight_decay * p) for leaves of 2+ axes, p - lr * g otherwise."""
    def update(p, g):
        decay = weight_decay * p if p.ndim == 2 else 0.0
        return p - lr * (g + decay)

    return jax.tree.map(update, params, grads)
