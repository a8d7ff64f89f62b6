# expect: Hint: vs stores its n vectors as columns, so its batch axis is axis 1: in_axes=(0, 1)
# Sharp bit: wrong in_axes: axis 0 of vs runs over vector entries, not over the n vectors
import jax


def matvec(m, v):
    """One matrix (k, d) times one vector (d,) -> (k,)."""
    return m @ v


def batched_matvec(ms, vs):
    return jax.vmap(matvec, in_axes=(0, 0), out_axes=1)(ms, vs)
