# expect: Its column blocks are in the wrong places
# diagnosis: Its column blocks are in the wrong places: after s steps of a ring that sends i -> i + 1
# The ring sends i -> i + 1, but each product is written as if the blocks came the other way
@functools.partial(jax.jit, static_argnames="mesh")
def collective_matmul(x, w, mesh):
    n = mesh.shape["data"]
    ring = [(i, (i + 1) % n) for i in range(n)]

    def per_device(x_rows, w_cols):
        i = jax.lax.axis_index("data")
        width = w_cols.shape[1]
        result = jnp.zeros((x_rows.shape[0], n * width), x_rows.dtype)
        block = w_cols
        for step in range(n):
            owner = (i + step) % n  # wrong: this block came from i - step
            result = jax.lax.dynamic_update_slice_in_dim(result, x_rows @ block, owner * width,
                                                         axis=1)
            block = jax.lax.ppermute(block, "data", ring)
        return result

    return jax.shard_map(per_device, mesh=mesh, in_specs=(P("data"), P(None, "data")),
                         out_specs=P("data"))(x, w)
