# expect: names an axis that no enclosing pmap/shard_map/vmap declared
# Sharp bit: forgot axis_name in pmap, so the name given to pmean is unbound
def dp_sgd_step_pmap(params, x_split, y_split, lr):
    def loss(p, xb, yb):
        return jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2)

    def step(p, xb, yb, rate):
        grads = jax.lax.pmean(jax.grad(loss)(p, xb, yb), "batch")
        return jax.tree.map(lambda a, g: a - rate * g, p, grads)

    return jax.pmap(step, in_axes=(None, 0, 0, None))(params, x_split, y_split, lr)
