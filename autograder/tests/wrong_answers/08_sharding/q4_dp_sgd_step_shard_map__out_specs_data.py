# expect: out_specs=P('data') stacks the devices' results along axis 0
# Sharp bit: wrong out_specs: P("data") concatenates the per-device results instead of declaring one replicated value
def dp_sgd_step_shard_map(params, x, y, mesh, lr):
    def local_step(p, xb, yb):
        grads = jax.grad(lambda q: jax.lax.pmean(jnp.mean((xb @ q["w"] + q["b"] - yb) ** 2), "data"))(p)
        new = jax.tree.map(lambda a, g: a - lr * g, p, grads)
        return {"w": new["w"], "b": new["b"].reshape(1)}

    step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                                 out_specs=P("data")))
    out = step(params, x, y)
    return {"w": out["w"], "b": out["b"].sum()}
