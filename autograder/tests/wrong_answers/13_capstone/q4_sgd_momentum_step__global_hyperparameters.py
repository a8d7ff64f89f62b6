# expect: It matches lr=0.1 and momentum=0.9 whatever the arguments say
# diagnosis: It matches lr=0.1 and momentum=0.9 whatever the arguments say
# Sharp bit: global read at trace time (hyperparameters from globals, not the arguments, are frozen under jit)
LEARNING_RATE = 0.1
MOMENTUM = 0.9


def sgd_momentum_step(params, velocity, x, y, lr, momentum):
    """One SGD-with-momentum step: (new_params, new_velocity, loss, accuracy)."""
    (loss, accuracy), grads = loss_and_grad(params, x, y)
    velocity = jax.tree.map(lambda v, g: MOMENTUM * v + g, velocity, grads)
    params = jax.tree.map(lambda p, v: p - LEARNING_RATE * v, params, velocity)
    return params, velocity, loss, accuracy
