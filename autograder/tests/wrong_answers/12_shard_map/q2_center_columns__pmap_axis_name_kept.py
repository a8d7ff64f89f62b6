# expect: Hint: `psum` names the axis 'i', and the mesh's axes are 'data'
# Sharp bit: ported to shard_map, but the collectives still name pmap's axis "i"
def center_columns(x, mesh):
    def per_device(block):
        column_sums = jax.lax.psum(block.sum(axis=0), "i")
        rows = jax.lax.psum(block.shape[0], "i")
        return block - column_sums / rows

    return jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data"))(x)
