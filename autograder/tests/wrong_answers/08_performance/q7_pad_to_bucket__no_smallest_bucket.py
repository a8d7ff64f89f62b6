# expect: 6, where the buckets of these lengths need 3
# Powers of two without the smallest bucket of 8: lengths 1, 2, 3-4 and 5-8 get buckets of
# their own, so short sequences compile more programs than the buckets allow
def pad_to_bucket(x):
    """(padded, mask): x's rows zero-padded to the next power of two (at least 8), and a bool
    mask that is True on the real rows."""
    x = np.asarray(x, np.float32)
    n = x.shape[0]
    bucket = 1 << (n - 1).bit_length()
    padded = np.zeros((bucket, *x.shape[1:]), np.float32)
    padded[:n] = x
    return padded, np.arange(bucket) < n
