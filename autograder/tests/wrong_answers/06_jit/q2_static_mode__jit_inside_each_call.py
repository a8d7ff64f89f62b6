# expect: A `jax.jit(f)(...)` inside each call traces and compiles again on every call
# Sharp bit: jax.jit applied inside each call of normalise: one compilation per call
def build_normalise():
    """Return a jitted function normalise(x, mode) whose `mode` is a static argument."""
    def formula(x, mode):
        if mode == "zscore":
            return (x - x.mean()) / x.std()
        if mode == "minmax":
            return (x - x.min()) / (x.max() - x.min())
        if mode == "l2":
            return x / jnp.sqrt(jnp.sum(x**2))
        raise ValueError(f"unknown mode {mode!r}")

    def normalise(x, mode):
        return jax.jit(formula, static_argnames="mode")(x, mode)

    return normalise
