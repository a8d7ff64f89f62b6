# expect: It is the transpose, one row per example: out_axes=1 puts the batch axis second
# Sharp bit: out_axes left at 0: the result comes back transposed, (n, k) instead of (k, n)
import jax


def matvec(m, v):
    """One matrix (k, d) times one vector (d,) -> (k,)."""
    return m @ v


def batched_matvec(ms, vs):
    return jax.vmap(matvec, in_axes=(0, 1))(ms, vs)
