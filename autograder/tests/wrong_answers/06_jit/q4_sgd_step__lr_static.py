# expect: step compiled 3 more time(s) for new learning rates. Pass lr as an ordinary (traced) argument
# Sharp bit: a value that changes every call marked static (one compile per learning rate)
def build_sgd_step():
    """Return a jitted step(w, x, y, lr) -> new w, one gradient-descent step on the MSE."""
    def loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    def step(w, x, y, lr):
        return w - lr * jax.grad(loss)(w, x, y)

    return jax.jit(step, static_argnames="lr")
