# expect: Hint: A bare `P(...)` names the current mesh, and none is set here
# hint: pass `NamedSharding(mesh, P(...))` instead of the bare spec
# Sharp bit: placing the first w with a bare P("data"): a bare spec needs a current mesh (jax.set_mesh)
@functools.partial(jax.jit, static_argnames="mesh")
def fsdp_program(w, x, y, mesh, lr):
    n_rows = x.shape[0]

    def per_device(w_slice, x_rows, y_rows):
        w_full = jax.lax.all_gather(w_slice, "data", tiled=True)
        g_full = jax.grad(lambda v: jnp.sum((x_rows @ v - y_rows) ** 2) / n_rows)(w_full)
        g_slice = jax.lax.psum_scatter(g_full, "data", scatter_dimension=0, tiled=True)
        return w_slice - lr * g_slice

    step = jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
    return step(w, x, y)


def fsdp_sgd_step(w, x, y, mesh, lr):
    w = jax.device_put(w, P("data"))
    return fsdp_program(w, x, y, mesh, lr)
