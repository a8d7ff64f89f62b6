# expect: a bandwidth is bytes per second
# diagnosis: a bandwidth is bytes per second
# Mistake: units: bytes times bytes-per-second is not a time
def roofline_seconds(f, args, peak, bandwidth):
    """Least seconds jax.jit(f)(*args) needs by the roofline: max(flops / peak, bytes / bandwidth)."""
    cost = jax.jit(f).lower(*args).compile().cost_analysis()
    return max(cost["flops"] / peak, cost["bytes accessed"] * bandwidth)
