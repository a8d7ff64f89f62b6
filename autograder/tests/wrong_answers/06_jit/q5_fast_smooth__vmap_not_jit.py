# expect: the function build_fast_smooth() returns is a plain function, not a jitted function: jit it once inside build_fast_smooth
# Sharp bit: vmap is not jit (a vmapped function still dispatches every operation from Python)
def build_fast_smooth():
    """Return fast(x, steps): the same values as smooth(x, steps), as one compiled call."""
    return jax.vmap(smooth, in_axes=(0, None))
