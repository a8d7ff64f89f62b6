# expect: below full float32 precision (dot_general at precision = [HIGH, HIGH])
# Precision.HIGH: three bfloat16 passes on a TPU, better than the default but not full float32
def precise_gram(x):
    """x.T @ x, the matrix product at full float32 precision on every backend."""
    return jnp.matmul(x.T, x, precision=jax.lax.Precision.HIGH)
