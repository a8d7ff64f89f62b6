# expect: It matches fn with every row counted, the padding too
# diagnosis: It matches fn with every row counted, the padding too: the mask must be False on the padding rows.
# The right buckets, but a mask of all True: the zero rows of the padding enter the mean
def pad_to_bucket(x):
    """(padded, mask): x's rows zero-padded to the next power of two (at least 8), and a bool
    mask that is True on the real rows."""
    x = np.asarray(x, np.float32)
    n = x.shape[0]
    bucket = max(8, 1 << (n - 1).bit_length())
    padded = np.zeros((bucket, *x.shape[1:]), np.float32)
    padded[:n] = x
    return padded, np.ones(bucket, bool)
