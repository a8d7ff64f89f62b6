# expect: Code needed a concrete (known-at-trace-time) value from a traced array
# Sharp bit: float() of a traced value inside jit (ConcretizationTypeError)
def build_sgd_step():
    """Return a jitted step(w, x, y, lr) -> new w, one gradient-descent step on the MSE."""
    def loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    def step(w, x, y, lr):
        lr = float(lr)  # "make sure it is a number"
        return w - lr * jax.grad(loss)(w, x, y)

    return jax.jit(step)
