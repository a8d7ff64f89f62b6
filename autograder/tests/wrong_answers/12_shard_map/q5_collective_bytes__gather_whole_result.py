# expect: It counts all n blocks of the result
# diagnosis: It counts all n blocks of the result: each device already holds its own block
# Sharp bit: the cost read off the result's size (n blocks), not off what has to move
def collective_bytes(collective, shape, dtype, n_devices):
    block = int(np.prod(shape)) * np.dtype(dtype).itemsize
    n = n_devices
    if n == 1:
        return 0
    return {"all_gather": n * block, "psum_scatter": (n - 1) / n * block,
            "psum": 2 * (n - 1) / n * block, "all_to_all": (n - 1) / n * block,
            "ppermute": block}[collective]
