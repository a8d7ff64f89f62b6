# expect: It matches a plain step with no weight decay: add weight_decay * p to the gradient
# diagnosis: It matches a plain step with no weight decay: add weight_decay * p to the gradient
# The chapter's sgd_update transcribed: the per-leaf rule (decay on matrices) is left out
import jax


def sgd_step(params, grads, lr, weight_decay):
    """One step: p - lr * (g + weight_decay * p) for leaves of 2+ axes, p - lr * g otherwise."""
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
