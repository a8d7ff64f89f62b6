# expect: sgd_momentum_step modified the params and velocity dicts it was given
# Sharp bit: in-place update (writing the new arrays into the caller's dicts makes the step impure)
def sgd_momentum_step(params, velocity, x, y, lr, momentum):
    """One SGD-with-momentum step: (new_params, new_velocity, loss, accuracy)."""
    (loss, accuracy), grads = loss_and_grad(params, x, y)
    for layer in params:
        for name in params[layer]:
            velocity[layer][name] = momentum * velocity[layer][name] + grads[layer][name]
            params[layer][name] = params[layer][name] - lr * velocity[layer][name]
    return params, velocity, loss, accuracy
