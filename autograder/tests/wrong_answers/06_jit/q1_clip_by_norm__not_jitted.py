# expect: clip_by_norm is a plain function, not a jitted function
# Sharp bit: unjitted function handed in as jitted (the decorator removed to make the `if` work)
def clip_by_norm(x, max_norm):
    """Rescale x so that its Euclidean norm (over all entries) is at most max_norm."""
    norm = jnp.sqrt(jnp.sum(x**2))
    if norm > max_norm:
        return x * (max_norm / norm)
    return x
