# expect: Hint: A transformation was given a traced value
# Sharp bit: jax.grad(loss(w, x, y)) differentiates the loss's value, not the function loss
def build_sgd_step():
    """Return a jitted step(w, x, y, lr) -> new w, one gradient-descent step on the MSE."""
    def loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    def step(w, x, y, lr):
        return w - lr * jax.grad(loss(w, x, y))(w, x, y)

    return jax.jit(step)
