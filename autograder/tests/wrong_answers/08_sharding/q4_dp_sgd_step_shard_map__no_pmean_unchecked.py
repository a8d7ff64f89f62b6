# expect: It matches the first device's step on its own rows only
# Sharp bit: no pmean at all, with check_vma=False: out_specs=P() then silently returns one device's local step
def dp_sgd_step_shard_map(params, x, y, mesh, lr):
    def local_step(p, xb, yb):
        grads = jax.grad(lambda q: jnp.mean((xb @ q["w"] + q["b"] - yb) ** 2))(p)
        return jax.tree.map(lambda a, g: a - lr * g, p, grads)

    step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                                 out_specs=P(), check_vma=False))
    return step(params, x, y)
