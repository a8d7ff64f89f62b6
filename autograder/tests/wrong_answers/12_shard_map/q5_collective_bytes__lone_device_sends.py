# expect: A single device has no neighbour
# diagnosis: A single device has no neighbour: nothing leaves it, so every collective sends 0 bytes.
# Right on a ring; but a ring of one device has no link, and its ppermute sends nothing
def collective_bytes(collective, shape, dtype, n_devices):
    block = int(np.prod(shape)) * np.dtype(dtype).itemsize
    n = n_devices
    return {"all_gather": (n - 1) * block, "psum_scatter": (n - 1) / n * block,
            "psum": 2 * (n - 1) / n * block, "all_to_all": (n - 1) / n * block,
            "ppermute": block}[collective]
