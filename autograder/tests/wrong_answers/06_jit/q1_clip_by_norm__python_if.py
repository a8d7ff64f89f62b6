# expect: Hint: A Python `if`/`while`/`and`/`or` looked at a traced value inside jit. Select with `jnp.where(condition, a, b)`
# Sharp bit: Python `if` on a traced value inside jit (TracerBoolConversionError)
@jax.jit
def clip_by_norm(x, max_norm):
    """Rescale x so that its Euclidean norm (over all entries) is at most max_norm."""
    norm = jnp.sqrt(jnp.sum(x**2))
    if norm > max_norm:
        return x * (max_norm / norm)
    return x
