# expect: it loops over the batch in Python. Use `jax.vmap` so the program stays the same size
# Sharp bit: Python loop where vmap was asked (jnp.stack along axis 1)
import jax.numpy as jnp


def matvec(m, v):
    """One matrix (k, d) times one vector (d,) -> (k,)."""
    return m @ v


def batched_matvec(ms, vs):
    return jnp.stack([matvec(ms[i], vs[:, i]) for i in range(ms.shape[0])], axis=1)
