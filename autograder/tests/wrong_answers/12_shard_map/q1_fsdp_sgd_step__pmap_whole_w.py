# expect: Hint: The mapped axes of `pmap`'s arguments have different sizes
# hint: Reshape what is split, e.g. `w.reshape(n_devices, -1)`
# Sharp bit: the step written with pmap, w passed whole: its leading axis (d entries) is split over the devices like the reshaped batch
@functools.partial(jax.jit, static_argnames="mesh")
def fsdp_program(w, x, y, mesh, lr):
    n = mesh.shape["data"]
    n_rows = x.shape[0]

    def per_device(w_slice, x_rows, y_rows, step_size):
        w_full = jax.lax.all_gather(w_slice, "data", tiled=True)
        g_full = jax.grad(lambda v: jnp.sum((x_rows @ v - y_rows) ** 2) / n_rows)(w_full)
        g_slice = jax.lax.psum_scatter(g_full, "data", scatter_dimension=0, tiled=True)
        return w_slice - step_size * g_slice

    new = jax.pmap(per_device, axis_name="data", in_axes=(0, 0, 0, None))(
        w, x.reshape(n, -1, x.shape[1]), y.reshape(n, -1), lr)
    return new.reshape(-1)


def fsdp_sgd_step(w, x, y, mesh, lr):
    return fsdp_program(w, x, y, mesh, lr)
