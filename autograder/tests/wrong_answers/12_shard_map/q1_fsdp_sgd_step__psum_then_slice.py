# expect: the step does not use jax.lax.psum_scatter
# Sharp bit: psum then a slice: right numbers, but every device holds the whole gradient
def fsdp_sgd_step(w, x, y, mesh, lr):
    n_rows = x.shape[0]

    def per_device(w_slice, x_rows, y_rows):
        w_full = jax.lax.all_gather(w_slice, "data", tiled=True)
        g_full = jax.lax.psum(jax.grad(lambda v: jnp.sum((x_rows @ v - y_rows) ** 2) / n_rows)(w_full), "data")
        size = w_slice.shape[0]
        mine = jax.lax.dynamic_slice(g_full, (jax.lax.axis_index("data") * size,), (size,))
        return w_slice - lr * mine

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data")))(w, x, y)
