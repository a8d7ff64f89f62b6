# expect: Use `jax.numpy` (`jnp.…`) for computations on traced arrays
# Sharp bit: NumPy functions called on traced values inside jit (TracerArrayConversionError)
def build_normalise():
    """Return a jitted function normalise(x, mode) whose `mode` is a static argument."""
    def normalise(x, mode):
        if mode == "zscore":
            return (x - np.mean(x)) / np.std(x)
        if mode == "minmax":
            return (x - np.min(x)) / (np.max(x) - np.min(x))
        if mode == "l2":
            return x / np.linalg.norm(x)
        raise ValueError(f"unknown mode {mode!r}")

    return jax.jit(normalise, static_argnames="mode")
