# expect: Hint: A Python `assert` (or `if ...: raise`) asks whether a traced value is true
# Sharp bit: `assert` on a traced value inside jit calls bool() on a tracer
@jax.jit
def safe_log(x):
    """jnp.log(x), with a check that every entry of x is strictly positive."""
    assert jnp.all(x > 0), "safe_log needs positive entries"
    return jnp.log(x)
