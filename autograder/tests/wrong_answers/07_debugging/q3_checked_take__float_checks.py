# expect: For index 5 into 5 entries err.get() was None
# Mistake: the wrong kind of automatic check: float checks look for NaNs and divisions by zero
def build_checked_take():
    """Return take(x, i) -> (err, x[i]), whose err reports any out-of-bounds index."""
    def take(x, i):
        return x[i]

    return jax.jit(checkify.checkify(take, errors=checkify.float_checks))
