# expect: Hint: `jax.jit`'s `in_shardings` gives one sharding per positional argument, in order: it lists 3 shardings for 4 arguments (JAX's message says "pjit"
# Sharp bit: in_shardings names w, x and y but not lr: one entry per positional argument
def fsdp_sgd_step(w, x, y, mesh, lr):
    rows = NamedSharding(mesh, P("data"))
    n_rows = x.shape[0]

    def per_device(w_slice, x_rows, y_rows, lr):
        w_full = jax.lax.all_gather(w_slice, "data", tiled=True)
        g_full = jax.grad(lambda v: jnp.sum((x_rows @ v - y_rows) ** 2) / n_rows)(w_full)
        g_slice = jax.lax.psum_scatter(g_full, "data", scatter_dimension=0, tiled=True)
        return w_slice - lr * g_slice

    step = jax.shard_map(per_device, mesh=mesh, in_specs=(P("data"), P("data"), P("data"), P()),
                         out_specs=P("data"))
    program = jax.jit(step, in_shardings=(rows, rows, rows), out_shardings=rows)
    return program(w, x, y, lr)
