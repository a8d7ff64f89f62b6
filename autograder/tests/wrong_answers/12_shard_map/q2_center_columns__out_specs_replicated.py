# expect: Hint: `out_specs=P()` declares that every device returned the same value
# Sharp bit: each device's centred block differs from the others', so out_specs=P() is wrong
def center_columns(x, mesh):
    def per_device(block):
        column_sums = jax.lax.psum(block.sum(axis=0), "data")
        return block - column_sums / jax.lax.psum(block.shape[0], "data")

    return jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P())(x)
