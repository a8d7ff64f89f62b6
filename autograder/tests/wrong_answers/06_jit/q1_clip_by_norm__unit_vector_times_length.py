# expect: Case: all zeros
# diagnosis: It divides by the norm, which is 0 here (0 / 0 is NaN)
# Sharp bit: x / norm times the clipped length: right for any non-zero x, 0 / 0 = NaN for zeros
@jax.jit
def clip_by_norm(x, max_norm):
    """Rescale x so that its Euclidean norm (over all entries) is at most max_norm."""
    norm = jnp.sqrt(jnp.sum(x**2))
    return x / norm * jnp.minimum(norm, max_norm)
