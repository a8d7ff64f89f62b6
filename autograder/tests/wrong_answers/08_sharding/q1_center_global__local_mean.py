# expect: It matches subtracting each device's own mean: a device sees only its block
# Sharp bit: each device sees only its own block; without a collective the "mean" is local
def center_global(x, scale):
    def per_device(block, s):
        return s * (block - block.mean(axis=0))

    return jax.pmap(per_device, axis_name="devices", in_axes=(0, None))(x, scale)
