# expect: each device's gradient was of its own rows' mean loss, and psum_scatter adds them up
# diagnosis: each device's gradient was of its own rows' mean loss, and psum_scatter adds them up
# Sharp bit: each device's rows' mean loss: psum_scatter then adds n_devices gradients of means
def fsdp_sgd_step(w, x, y, mesh, lr):
    def per_device(w_slice, x_rows, y_rows):
        w_full = jax.lax.all_gather(w_slice, "data", tiled=True)
        g_full = jax.grad(lambda v: jnp.mean((x_rows @ v - y_rows) ** 2))(w_full)
        return w_slice - lr * jax.lax.psum_scatter(g_full, "data", scatter_dimension=0, tiled=True)

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data")))(w, x, y)
