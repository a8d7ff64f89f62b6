# expect: center_columns calls jax.pmap: port it to jax.shard_map
# Sharp bit: reshaping to a device axis and calling the old pmap code is not a port
def center_columns_pmap(x_split):
    def per_device(block):
        column_sums = jax.lax.psum(block.sum(axis=0), "i")
        rows = jax.lax.psum(block.shape[0], "i")
        return block - column_sums / rows

    return jax.pmap(per_device, axis_name="i")(x_split)


def center_columns(x, mesh):
    n = mesh.shape["data"]
    out = center_columns_pmap(np.asarray(x).reshape(n, -1, x.shape[1]))
    return jax.device_put(np.asarray(out).reshape(x.shape), NamedSharding(mesh, P("data")))
