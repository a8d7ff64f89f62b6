# expect: precise_gram(x) for x of shape (6, 4) has the wrong shape
# x @ x.T at full precision: the (n, n) matrix of the rows' dot products, not the (d, d) Gram
def precise_gram(x):
    """x.T @ x, the matrix product at full float32 precision on every backend."""
    return jnp.matmul(x, x.T, precision=jax.lax.Precision.HIGHEST)
