# expect: It is only the step -lr * g: return the updated parameters, p - lr * g
# diagnosis: It is only the step -lr * g: return the updated parameters, p - lr * g
# Sharp bit: returns the update step -lr * g instead of the updated parameters p - lr * g
import jax


def sgd_step(params, grads, lr):
    """Return params - lr * grads, leaf by leaf, with the structure of params."""
    return jax.tree.map(lambda g: -lr * g, grads)
