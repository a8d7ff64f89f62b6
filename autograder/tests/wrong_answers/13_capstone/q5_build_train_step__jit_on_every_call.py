# expect: the function build_train_step(step) returns is a plain function, not a jitted function: jit it once inside build_train_step
# Sharp bit: jax.jit applied inside the call (the returned function is a plain wrapper, not jitted)
def build_train_step(step):
    """Return a jitted version of step(params, velocity, x, y, lr, momentum)."""

    def train_step(params, velocity, x, y, lr, momentum):
        return jax.jit(step)(params, velocity, x, y, lr, momentum)

    return train_step
