# expect: It matches moving the parameters with the old velocity
# diagnosis: It matches moving the parameters with the old velocity
# Sharp bit: stale state (the parameters move with the old velocity, the new one is only returned)
def sgd_momentum_step(params, velocity, x, y, lr, momentum):
    """One SGD-with-momentum step: (new_params, new_velocity, loss, accuracy)."""
    (loss, accuracy), grads = loss_and_grad(params, x, y)
    new_velocity = jax.tree.map(lambda v, g: momentum * v + g, velocity, grads)
    params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
    return params, new_velocity, loss, accuracy
