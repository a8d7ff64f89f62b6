# expect: the function build_fast_smooth() returns is a plain function, not a jitted function: jit it once inside build_fast_smooth
# Sharp bit: a plain Python wrapper, decorated with nothing, is not compiled
def build_fast_smooth():
    """Return fast(x, steps): the same values as smooth(x, steps), as one compiled call."""
    def fast(x, steps):
        return smooth(x, steps)

    return fast
