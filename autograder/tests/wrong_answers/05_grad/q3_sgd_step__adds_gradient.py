# expect: It matches p + lr * (...): a descent step goes against the gradient.
# diagnosis: It matches p + lr * (...): a descent step goes against the gradient.
# Sharp bit: the update adds the gradient (gradient ascent) instead of subtracting it
import jax


def sgd_step(params, grads, lr, weight_decay):
    """One step: p - lr * (g + weight_decay * p) for leaves of 2+ axes, p - lr * g otherwise."""
    def update(p, g):
        decay = weight_decay * p if p.ndim >= 2 else 0.0
        return p + lr * (g + decay)

    return jax.tree.map(update, params, grads)
