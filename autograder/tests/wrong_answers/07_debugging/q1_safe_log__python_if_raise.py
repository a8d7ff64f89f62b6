# expect: Hint: A Python `assert` (or `if ...: raise`) asks whether a traced value is true
# Sharp bit: `if ...: raise` on a traced value inside jit (TracerBoolConversionError while tracing)
@jax.jit
def safe_log(x):
    """jnp.log(x), with a check that every entry of x is strictly positive."""
    if jnp.any(x <= 0):
        raise ValueError("safe_log needs positive entries")
    return jnp.log(x)
