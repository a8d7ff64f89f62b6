# expect: it uses all_gather, which hands every device the whole of w
# Sharp bit: gathering w then multiplying gives the right values, with every device holding all of w
@functools.partial(jax.jit, static_argnames="mesh")
def collective_matmul(x, w, mesh):
    def per_device(x_rows, w_cols):
        return x_rows @ jax.lax.all_gather(w_cols, "data", axis=1, tiled=True)

    return jax.shard_map(per_device, mesh=mesh, in_specs=(P("data"), P(None, "data")),
                         out_specs=P("data"))(x, w)
