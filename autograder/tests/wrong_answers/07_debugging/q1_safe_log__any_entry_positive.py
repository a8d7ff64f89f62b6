# expect: For [2, -1, 3] err.get() was None: no check failed.
# Sharp bit: jnp.any where jnp.all was needed: one positive entry lets the whole input pass
@jax.jit
def safe_log(x):
    """jnp.log(x), with a check that every entry of x is strictly positive."""
    checkify.check(jnp.any(x > 0), "safe_log needs positive entries")
    return jnp.log(x)
