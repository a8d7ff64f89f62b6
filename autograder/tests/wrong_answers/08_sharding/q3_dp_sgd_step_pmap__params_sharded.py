# expect: Hint: `pmap` split a value over the devices that has no device axis
# Sharp bit: wrong in_axes: the parameters are split across devices (in_axes=0) instead of replicated (None)
def dp_sgd_step_pmap(params, x_split, y_split, lr):
    def loss(p, xb, yb):
        return jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2)

    def step(p, xb, yb, rate):
        grads = jax.lax.pmean(jax.grad(loss)(p, xb, yb), "batch")
        return jax.tree.map(lambda a, g: a - rate * g, p, grads)

    return jax.pmap(step, axis_name="batch", in_axes=(0, 0, 0, None))(params, x_split, y_split, lr)
