# expect: the update is 8 times the expected one, 8 being the number of devices
# Sharp bit: the pmap recipe ported unchanged: with check_vma, grad already sums gradients of P() params over devices, so pmean leaves them n_devices times too large
def dp_sgd_step_shard_map(params, x, y, mesh, lr):
    def local_step(p, xb, yb):
        grads = jax.grad(lambda q: jnp.mean((xb @ q["w"] + q["b"] - yb) ** 2))(p)
        grads = jax.lax.pmean(grads, "data")
        return jax.tree.map(lambda a, g: a - lr * g, p, grads)

    step = jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                                 out_specs=P()))
    return step(params, x, y)
