# expect: Parameters and settings are shared, not split: give them `None` in `in_axes`
# Sharp bit: wrong in_axes: the shared scalar is mapped over devices (in_axes=0) instead of None
def center_global(x, scale):
    def per_device(block, s):
        global_mean = jax.lax.pmean(block.mean(axis=0), "devices")
        return s * (block - global_mean)

    return jax.pmap(per_device, axis_name="devices")(x, scale)
