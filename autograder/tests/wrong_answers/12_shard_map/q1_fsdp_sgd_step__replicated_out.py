# expect: Hint: `out_specs=P()` declares that every device returned the same value
# Sharp bit: the whole new w returned with out_specs=P(): it was computed from a gathered w
def fsdp_sgd_step(w, x, y, mesh, lr):
    n_rows = x.shape[0]

    def per_device(w_slice, x_rows, y_rows):
        w_full = jax.lax.all_gather(w_slice, "data", tiled=True)
        g_full = jax.grad(lambda v: jnp.sum((x_rows @ v - y_rows) ** 2) / n_rows)(w_full)
        return w_full - lr * jax.lax.psum(g_full, "data")

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P()))(w, x, y)
