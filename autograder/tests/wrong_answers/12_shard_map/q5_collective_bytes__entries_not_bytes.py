# expect: It counts entries, not bytes
# diagnosis: It counts entries, not bytes: multiply the number of entries by the dtype's itemsize
# Counts the block's entries and forgets that each takes itemsize bytes
def collective_bytes(collective, shape, dtype, n_devices):
    block = int(np.prod(shape))
    n = n_devices
    if n == 1:
        return 0
    return {"all_gather": (n - 1) * block, "psum_scatter": (n - 1) / n * block,
            "psum": 2 * (n - 1) / n * block, "all_to_all": (n - 1) / n * block,
            "ppermute": block}[collective]
