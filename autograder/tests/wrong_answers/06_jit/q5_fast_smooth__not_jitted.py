# expect: the function build_fast_smooth() returns is a plain function, not a jitted function: jit it once inside build_fast_smooth
# Sharp bit: unjitted function handed in as jitted (still one dispatch per operation)
def build_fast_smooth():
    """Return fast(x, steps): the same values as smooth(x, steps), as one compiled call."""
    return smooth
