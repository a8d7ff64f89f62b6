# expect: Hint: A Python loop `for ... in range(n)` needs `n` as a Python int while tracing
# hint: mark it static, `jax.jit(f, static_argnames="n")`
# Sharp bit: static argument omitted (range() of a traced value)
def build_fast_smooth():
    """Return fast(x, steps): the same values as smooth(x, steps), as one compiled call."""
    return jax.jit(smooth)
