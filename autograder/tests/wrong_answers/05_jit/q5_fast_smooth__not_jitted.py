# expect: build_fast_smooth() is a plain function, not a jitted function
# Sharp bit: unjitted function handed in as jitted (still one dispatch per operation)
def build_fast_smooth():
    """Return fast(x, steps): the same values as smooth(x, steps), as one compiled call."""
    return smooth
