# expect: it loops over the batch in Python. Use `jax.vmap` so the program stays the same size whatever the batch
# Sharp bit: Python loop where vmap was asked (outer loop over a, inner vmap)
import jax
import jax.numpy as jnp


def distance(p, q):
    """Euclidean distance between two points p, q of shape (d,)."""
    return jnp.sqrt(jnp.sum((p - q) ** 2))


def pairwise_distances(a, b):
    one_row = jax.vmap(distance, in_axes=(None, 0))
    return jnp.stack([one_row(p, b) for p in a])
