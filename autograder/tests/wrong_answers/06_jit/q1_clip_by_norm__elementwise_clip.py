# expect: it is the norm of the whole array that must be at most max_norm
# diagnosis: it is the norm of the whole array that must be at most max_norm
# Sharp bit: jnp.clip clips each entry, not the norm of the whole array
@jax.jit
def clip_by_norm(x, max_norm):
    """Rescale x so that its Euclidean norm (over all entries) is at most max_norm."""
    return jnp.clip(x, -max_norm, max_norm)
