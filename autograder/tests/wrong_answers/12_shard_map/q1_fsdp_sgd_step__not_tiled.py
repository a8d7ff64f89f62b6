# expect: all_gather without tiled=True stacks the slices along a new leading axis
# Sharp bit: all_gather without tiled=True stacks the slices (n_devices, d / n_devices)
def fsdp_sgd_step(w, x, y, mesh, lr):
    n_rows = x.shape[0]

    def per_device(w_slice, x_rows, y_rows):
        w_full = jax.lax.all_gather(w_slice, "data")
        g_full = jax.grad(lambda v: jnp.sum((x_rows @ v - y_rows) ** 2) / n_rows)(w_full)
        return w_slice - lr * jax.lax.psum_scatter(g_full, "data", scatter_dimension=0, tiled=True)

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data")))(w, x, y)
