# expect: the slower resource sets the least time
# diagnosis: the slower resource sets the least time
# Mistake: min where the roofline takes max
def roofline_seconds(f, args, peak, bandwidth):
    """Least seconds jax.jit(f)(*args) needs by the roofline: max(flops / peak, bytes / bandwidth)."""
    cost = jax.jit(f).lower(*args).compile().cost_analysis()
    return min(cost["flops"] / peak, cost["bytes accessed"] / bandwidth)
