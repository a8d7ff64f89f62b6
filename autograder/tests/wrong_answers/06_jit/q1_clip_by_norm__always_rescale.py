# expect: It stretched a vector that was short enough to norm 1: rescale only when norm > max_norm
# diagnosis: It stretched a vector that was short enough to norm 1: rescale only when norm > max_norm
# Sharp bit: dropping the branch instead of selecting with jnp.where (short vectors get stretched)
@jax.jit
def clip_by_norm(x, max_norm):
    """Rescale x so that its Euclidean norm (over all entries) is at most max_norm."""
    norm = jnp.sqrt(jnp.sum(x**2))
    return x * (max_norm / norm)
