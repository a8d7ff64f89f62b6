# expect: safe_log is a plain function, not a jitted function
# Sharp bit: the @jax.jit decorator removed (checkify alone still runs it, but the task asks for jit)
def safe_log(x):
    """jnp.log(x), with a check that every entry of x is strictly positive."""
    checkify.check(jnp.all(x > 0), "safe_log needs positive entries")
    return jnp.log(x)
