# expect: 2, where the buckets of these lengths need 3
# The power of two at or below n (bit_length() - 1), so a sequence longer than its bucket is
# cut: its last rows are lost, and the lengths 9 to 20 share two buckets
def pad_to_bucket(x):
    """(padded, mask): x's rows zero-padded to the next power of two (at least 8), and a bool
    mask that is True on the real rows."""
    x = np.asarray(x, np.float32)
    n = x.shape[0]
    bucket = max(8, 1 << (n.bit_length() - 1))
    padded = np.zeros((bucket, *x.shape[1:]), np.float32)
    padded[: min(n, bucket)] = x[:bucket]
    return padded, np.arange(bucket) < n
