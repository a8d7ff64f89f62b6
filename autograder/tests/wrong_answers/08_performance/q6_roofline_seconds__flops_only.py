# expect: compare with `bytes / bandwidth` as well
# diagnosis: compare with `bytes / bandwidth` as well
# Mistake: counting operations only, the model that says equal flops cost equal time
def roofline_seconds(f, args, peak, bandwidth):
    """Least seconds jax.jit(f)(*args) needs by the roofline: max(flops / peak, bytes / bandwidth)."""
    cost = jax.jit(f).lower(*args).compile().cost_analysis()
    return cost["flops"] / peak
