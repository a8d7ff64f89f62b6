# expect: Apply the operation to every array in the structure with `jax.tree.map
# Sharp bit: a dict comprehension updates only the top level, not a nested pytree (no jax.tree.map)
def sgd_step(params, grads, lr):
    """Return params - lr * grads, leaf by leaf, with the structure of params."""
    return {name: params[name] - lr * grads[name] for name in params}
