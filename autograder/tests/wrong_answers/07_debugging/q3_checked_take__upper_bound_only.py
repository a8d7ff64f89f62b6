# expect: Index -6 into 5 entries is out of bounds and should be reported.
# Mistake: a check of its own for the upper end only: an index below -len(x) is read silently
def build_checked_take():
    """Return take(x, i) -> (err, x[i]), whose err reports any out-of-bounds index."""
    def take(x, i):
        checkify.check(jnp.all(i < x.shape[0]), "index past the end")
        return x[i]

    return jax.jit(checkify.checkify(take))
