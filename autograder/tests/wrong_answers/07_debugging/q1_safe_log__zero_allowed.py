# expect: For [1, 0] err.get() was None: 0 is not strictly positive (check x > 0, not x >= 0).
# Sharp bit: the check's condition is x >= 0, so a zero entry passes and log(0) = -inf comes back
@jax.jit
def safe_log(x):
    """jnp.log(x), with a check that every entry of x is strictly positive."""
    checkify.check(jnp.all(x >= 0), "safe_log needs positive entries")
    return jnp.log(x)
