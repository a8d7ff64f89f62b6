# expect: before XLA fuses it
# diagnosis: before XLA fuses it
# Sharp bit: the lowered program's estimate counts every intermediate written and read back
def roofline_seconds(f, args, peak, bandwidth):
    """Least seconds jax.jit(f)(*args) needs by the roofline: max(flops / peak, bytes / bandwidth)."""
    cost = jax.jit(f).lower(*args).cost_analysis()
    return max(cost["flops"] / peak, cost["bytes accessed"] / bandwidth)
