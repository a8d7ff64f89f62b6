# expect: the function build_sgd_step() returns is a plain function, not a jitted function: jit it once inside build_sgd_step
# Sharp bit: jax.jit applied to a fresh lambda inside the function, on every call (retraces)
def build_sgd_step():
    """Return a jitted step(w, x, y, lr) -> new w, one gradient-descent step on the MSE."""
    def loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    def step(w, x, y, lr):
        return jax.jit(lambda w, x, y: w - lr * jax.grad(loss)(w, x, y))(w, x, y)

    return step
