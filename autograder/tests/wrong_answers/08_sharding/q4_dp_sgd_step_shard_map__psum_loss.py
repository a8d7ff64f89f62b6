# expect: the gradient was summed over the devices, not averaged. Under shard_map, jax.grad already sums
# Sharp bit: psum of the per-device mean losses: the loss, and so the gradient, is n_devices times too large
def dp_sgd_step_shard_map(params, x, y, mesh, lr):
    def global_loss(p, xb, yb):
        return jax.lax.psum(jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2), "data")

    loss = jax.shard_map(global_loss, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                         out_specs=P())

    @jax.jit
    def step(p, xb, yb):
        grads = jax.grad(loss)(p, xb, yb)
        return jax.tree.map(lambda a, g: a - lr * g, p, grads)

    return step(params, x, y)
