# expect: the larger of the two, not their sum
# diagnosis: the larger of the two, not their sum
# Mistake: adding the compute time and the memory time, as if they could not overlap
def roofline_seconds(f, args, peak, bandwidth):
    """Least seconds jax.jit(f)(*args) needs by the roofline: max(flops / peak, bytes / bandwidth)."""
    cost = jax.jit(f).lower(*args).compile().cost_analysis()
    return cost["flops"] / peak + cost["bytes accessed"] / bandwidth
