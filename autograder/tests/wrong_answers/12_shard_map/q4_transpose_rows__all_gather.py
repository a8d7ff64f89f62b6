# expect: it uses all_gather, which hands every device the whole matrix
# Sharp bit: gathering everything and slicing gives the right values at n_devices times the memory
@functools.partial(jax.jit, static_argnames="mesh")
def transpose_rows(x, mesh):
    def per_device(block):
        whole = jax.lax.all_gather(block, "data", tiled=True)  # (R, C) on every device
        width = whole.shape[1] // mesh.shape["data"]
        start = jax.lax.axis_index("data") * width
        return jax.lax.dynamic_slice_in_dim(whole, start, width, axis=1).T

    return jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data"))(x)
