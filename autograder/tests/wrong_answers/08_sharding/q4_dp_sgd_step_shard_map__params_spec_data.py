# expect: Hint: An `in_specs` entry splits more axes than its argument has
# Sharp bit: wrong PartitionSpec: the parameters get P("data") (split over devices) instead of P() (replicated)
def dp_sgd_step_shard_map(params, x, y, mesh, lr):
    def global_loss(p, xb, yb):
        return jax.lax.pmean(jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2), "data")

    loss = jax.shard_map(global_loss, mesh=mesh, in_specs=(P("data"), P("data"), P("data")),
                         out_specs=P())

    @jax.jit
    def step(p, xb, yb):
        grads = jax.grad(loss)(p, xb, yb)
        return jax.tree.map(lambda a, g: a - lr * g, p, grads)

    return step(params, x, y)
