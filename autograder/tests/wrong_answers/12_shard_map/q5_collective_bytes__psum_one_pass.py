# expect: It counts one pass
# diagnosis: It counts one pass: an all-reduce (psum) is a reduce-scatter followed by an all-gather
# Sharp bit: an all-reduce counted like a reduce-scatter, as if the sum arrived everywhere in one pass
def collective_bytes(collective, shape, dtype, n_devices):
    block = int(np.prod(shape)) * np.dtype(dtype).itemsize
    n = n_devices
    if n == 1:
        return 0
    return {"all_gather": (n - 1) * block, "psum_scatter": (n - 1) / n * block,
            "psum": (n - 1) / n * block, "all_to_all": (n - 1) / n * block,
            "ppermute": block}[collective]
