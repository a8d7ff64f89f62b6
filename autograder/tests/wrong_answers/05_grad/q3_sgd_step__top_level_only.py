# expect: Apply the operation to every array in the structure with `jax.tree.map
# Sharp bit: a dict comprehension updates only the top level, not a nested pytree (no jax.tree.map)
def sgd_step(params, grads, lr, weight_decay):
    """One step: p - lr * (g + weight_decay * p) for leaves of 2+ axes, p - lr * g otherwise."""
    return {name: params[name] - lr * (grads[name] + weight_decay * params[name])
            for name in params}
