# expect: -1 is a valid index (the last entry, as in NumPy)
# Mistake: a check of its own, 0 <= i < len(x), which refuses NumPy's negative indices
def build_checked_take():
    """Return take(x, i) -> (err, x[i]), whose err reports any out-of-bounds index."""
    def take(x, i):
        checkify.check(jnp.all((i >= 0) & (i < x.shape[0])), "index out of bounds")
        return x[i]

    return jax.jit(checkify.checkify(take))
