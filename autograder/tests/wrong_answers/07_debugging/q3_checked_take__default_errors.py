# expect: For index 5 into 5 entries err.get() was None
# Mistake: checkify.checkify with its default errors, the user checks: no index check is added
def build_checked_take():
    """Return take(x, i) -> (err, x[i]), whose err reports any out-of-bounds index."""
    def take(x, i):
        return x[i]

    return jax.jit(checkify.checkify(take))
