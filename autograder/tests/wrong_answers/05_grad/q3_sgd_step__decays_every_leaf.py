# expect: It decays every leaf: biases and scalars (fewer than two axes) take the plain step
# diagnosis: It decays every leaf: biases and scalars (fewer than two axes) take the plain step
# One rule for every leaf: weight decay applied to the biases and scalar gains too
import jax


def sgd_step(params, grads, lr, weight_decay):
    """One step: p - lr * (g + weight_decay * p) for leaves of 2+ axes, p - lr * g otherwise."""
    return jax.tree.map(lambda p, g: p - lr * (g + weight_decay * p), params, grads)
