# expect: jnp.log of a negative number is NaN, not an error.
# Sharp bit: returning NaN for bad entries instead of checking: checkify reports no error
@jax.jit
def safe_log(x):
    """jnp.log(x), with NaN where x is not positive."""
    return jnp.where(x > 0, jnp.log(x), jnp.nan)
