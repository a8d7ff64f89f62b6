# expect: below full float32 precision (dot_general at algorithm BF16_BF16_F32)
# A dot algorithm with bfloat16 inputs: float32 accumulation, but the inputs are rounded
def precise_gram(x):
    """x.T @ x, the matrix product at full float32 precision on every backend."""
    return jnp.matmul(x.T, x, precision=jax.lax.DotAlgorithmPreset.BF16_BF16_F32)
