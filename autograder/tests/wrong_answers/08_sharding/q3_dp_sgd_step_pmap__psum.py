# expect: the update is 8 times the expected one, 8 being the number of devices: the devices' gradients were summed (psum), not averaged
# Sharp bit: psum instead of pmean: summing per-slice mean gradients makes the step n_devices times too large
def dp_sgd_step_pmap(params, x_split, y_split, lr):
    def loss(p, xb, yb):
        return jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2)

    def step(p, xb, yb, rate):
        grads = jax.lax.psum(jax.grad(loss)(p, xb, yb), "batch")
        return jax.tree.map(lambda a, g: a - rate * g, p, grads)

    return jax.pmap(step, axis_name="batch", in_axes=(None, 0, 0, None))(params, x_split, y_split, lr)
