# expect: build_fast_smooth() is a plain function, not a jitted function
# Sharp bit: vmap is not jit (a vmapped function still dispatches every operation from Python)
def build_fast_smooth():
    """Return fast(x, steps): the same values as smooth(x, steps), as one compiled call."""
    return jax.vmap(smooth, in_axes=(0, None))
