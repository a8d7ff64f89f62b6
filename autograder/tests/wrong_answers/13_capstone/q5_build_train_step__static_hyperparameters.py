# expect: a new learning rate and momentum made the step compile again: pass them as ordinary (traced) arguments
# Sharp bit: static arguments that change (every new learning rate compiles the step again)
def build_train_step(step):
    """Return a jitted version of step(params, velocity, x, y, lr, momentum)."""
    return jax.jit(step, static_argnames=("lr", "momentum"))
