# expect: Hint: An `in_specs` entry splits more axes than its argument has
# hint: `P()` for a value every device shares whole (a scalar such as the learning rate
# Sharp bit: lr passed through shard_map under in_specs=P("data"): one spec for every argument splits the scalar too
@functools.partial(jax.jit, static_argnames="mesh")
def fsdp_program(w, x, y, mesh, lr):
    n_rows = x.shape[0]

    def per_device(w_slice, x_rows, y_rows, step_size):
        w_full = jax.lax.all_gather(w_slice, "data", tiled=True)
        g_full = jax.grad(lambda v: jnp.sum((x_rows @ v - y_rows) ** 2) / n_rows)(w_full)
        g_slice = jax.lax.psum_scatter(g_full, "data", scatter_dimension=0, tiled=True)
        return w_slice - step_size * g_slice

    step = jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
    return step(w, x, y, lr)


def fsdp_sgd_step(w, x, y, mesh, lr):
    w = jax.device_put(w, NamedSharding(mesh, P("data")))
    return fsdp_program(w, x, y, mesh, lr)
