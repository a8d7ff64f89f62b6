# expect: It subtracts each device's own column means
# diagnosis: It subtracts each device's own column means
# Sharp bit: without the psums each device only sees its own block's means
def center_columns(x, mesh):
    def per_device(block):
        return block - block.mean(axis=0)

    return jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data"))(x)
