# expect: Hint: `pmap` split a value over the devices that has no device axis
# hint: give them `None` in `in_axes`
# Sharp bit: the step written with pmap, as older tutorials do: pmap splits every argument, the learning rate too
@functools.partial(jax.jit, static_argnames="mesh")
def fsdp_program(w, x, y, mesh, lr):
    n = mesh.shape["data"]
    n_rows = x.shape[0]

    def per_device(w_slice, x_rows, y_rows, step_size):
        w_full = jax.lax.all_gather(w_slice, "data", tiled=True)
        g_full = jax.grad(lambda v: jnp.sum((x_rows @ v - y_rows) ** 2) / n_rows)(w_full)
        g_slice = jax.lax.psum_scatter(g_full, "data", scatter_dimension=0, tiled=True)
        return w_slice - step_size * g_slice

    new = jax.pmap(per_device, axis_name="data")(
        w.reshape(n, -1), x.reshape(n, -1, x.shape[1]), y.reshape(n, -1), lr)
    return new.reshape(-1)


def fsdp_sgd_step(w, x, y, mesh, lr):
    return fsdp_program(w, x, y, mesh, lr)
