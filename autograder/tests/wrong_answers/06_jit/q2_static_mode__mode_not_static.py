# expect: Mark configuration arguments static: `jax.jit(f, static_argnames="mode")`
# Sharp bit: static argument omitted (a string cannot be traced)
def build_normalise():
    """Return a jitted function normalise(x, mode) whose `mode` is a static argument."""
    def normalise(x, mode):
        if mode == "zscore":
            return (x - x.mean()) / x.std()
        if mode == "minmax":
            return (x - x.min()) / (x.max() - x.min())
        if mode == "l2":
            return x / jnp.sqrt(jnp.sum(x**2))
        raise ValueError(f"unknown mode {mode!r}")

    return jax.jit(normalise)
