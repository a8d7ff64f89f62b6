# expect: ppermute's pairs are (source, destination), so for the left neighbour's block each device i sends to i + 1
# Sharp bit: ppermute pairs are (source, destination); these send left, so each device gets its right neighbour
def ring_difference(x):
    n = x.shape[0]
    perm = [(i, (i - 1) % n) for i in range(n)]

    def per_device(block):
        return block - jax.lax.ppermute(block, "ring", perm=perm)

    return jax.pmap(per_device, axis_name="ring")(x)
