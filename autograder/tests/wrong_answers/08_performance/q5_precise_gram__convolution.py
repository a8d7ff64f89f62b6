# expect: below full float32 precision (conv_general_dilated at precision = [DEFAULT, DEFAULT])
# The same product as a convolution at the default precision: no dot in the program, and a
# convolution contracts like one (bfloat16 or TF32 on a GPU or TPU)
def precise_gram(x):
    """x.T @ x, the matrix product at full float32 precision on every backend."""
    lhs = x.T[:, :, None]  # (d, n, 1): d "images" of n channels
    rhs = x.T[:, :, None]  # (d, n, 1): d kernels of n channels
    return jax.lax.conv_general_dilated(lhs, rhs, (1,), "VALID")[:, :, 0]
