# expect: It matches a line, not a ring: device 0 receives from nobody
# Sharp bit: a line, not a ring: device 0 receives from nobody, and ppermute fills that with zeros
def ring_difference(x):
    n = x.shape[0]
    perm = [(i, i + 1) for i in range(n - 1)]

    def per_device(block):
        return block - jax.lax.ppermute(block, "ring", perm=perm)

    return jax.pmap(per_device, axis_name="ring")(x)
