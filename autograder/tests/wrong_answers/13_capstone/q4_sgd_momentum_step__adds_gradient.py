# expect: It matches p + lr * v: the parameters move against the velocity, p - lr * v
# diagnosis: It matches p + lr * v: the parameters move against the velocity, p - lr * v
# Sharp bit: sign error in the update (adding the velocity climbs the loss instead of descending it)
def sgd_momentum_step(params, velocity, x, y, lr, momentum):
    """One SGD-with-momentum step: (new_params, new_velocity, loss, accuracy)."""
    (loss, accuracy), grads = loss_and_grad(params, x, y)
    velocity = jax.tree.map(lambda v, g: momentum * v + g, velocity, grads)
    params = jax.tree.map(lambda p, v: p + lr * v, params, velocity)
    return params, velocity, loss, accuracy
