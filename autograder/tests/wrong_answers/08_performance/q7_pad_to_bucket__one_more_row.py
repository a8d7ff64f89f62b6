# expect: where the buckets of these lengths need 3
# Padding, but to a length that grows with n (one row more than x): every length is its own
# shape, so the masked function compiles once per length, as if nothing were padded
def pad_to_bucket(x):
    """(padded, mask): x's rows zero-padded to the next power of two (at least 8), and a bool
    mask that is True on the real rows."""
    x = np.asarray(x, np.float32)
    n = x.shape[0]
    padded = np.zeros((n + 1, *x.shape[1:]), np.float32)
    padded[:n] = x
    return padded, np.arange(n + 1) < n
