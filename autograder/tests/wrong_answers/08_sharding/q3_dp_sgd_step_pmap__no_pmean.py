# expect: each device updated with a different gradient. Average the gradients across devices first
# Sharp bit: no pmean of the gradients: each device updates with its own slice's gradient and the copies drift apart
def dp_sgd_step_pmap(params, x_split, y_split, lr):
    def loss(p, xb, yb):
        return jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2)

    def step(p, xb, yb, rate):
        grads = jax.grad(loss)(p, xb, yb)
        return jax.tree.map(lambda a, g: a - rate * g, p, grads)

    return jax.pmap(step, axis_name="batch", in_axes=(None, 0, 0, None))(params, x_split, y_split, lr)
