# expect: The failed check's message (err.get()) should contain the word 'positive'.
# Sharp bit: the check holds the right condition, but its message does not say what was wrong
@jax.jit
def safe_log(x):
    """jnp.log(x), with a check that every entry of x is strictly positive."""
    checkify.check(jnp.all(x > 0), "bad input")
    return jnp.log(x)
