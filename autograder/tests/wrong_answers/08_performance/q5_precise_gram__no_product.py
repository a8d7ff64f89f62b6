# expect: has no matrix product (no dot_general or convolution)
# Products and sums of broadcast arrays: exact in float32, but no matrix product to set
def precise_gram(x):
    """x.T @ x, the matrix product at full float32 precision on every backend."""
    return jnp.sum(x[:, :, None] * x[:, None, :], axis=0)
