# expect: One vmap pairs a[i] with b[i] (and needs n == m); every pair needs two nested vmaps
# Sharp bit: one vmap pairs a[i] with b[i] (a diagonal), it does not form all pairs
import jax
import jax.numpy as jnp


def distance(p, q):
    """Euclidean distance between two points p, q of shape (d,)."""
    return jnp.sqrt(jnp.sum((p - q) ** 2))


def pairwise_distances(a, b):
    return jax.vmap(distance)(a, b)
