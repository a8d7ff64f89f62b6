# expect: the function build_train_step(step) returns is a plain function, not a jitted function: jit it once inside build_train_step
# Sharp bit: unjitted function handed in as jitted (the step still runs op by op)
def build_train_step(step):
    """Return a jitted version of step(params, velocity, x, y, lr, momentum)."""
    return step
