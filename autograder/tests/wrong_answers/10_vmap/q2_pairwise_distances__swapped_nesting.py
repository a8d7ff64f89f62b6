# expect: It is the transpose: the outer vmap decides the first axis of the result
# Sharp bit: nesting order: the outer vmap runs over b, so the result is transposed (m, n)
import jax
import jax.numpy as jnp


def distance(p, q):
    """Euclidean distance between two points p, q of shape (d,)."""
    return jnp.sqrt(jnp.sum((p - q) ** 2))


def pairwise_distances(a, b):
    one_column = jax.vmap(distance, in_axes=(0, None))
    return jax.vmap(one_column, in_axes=(None, 0))(a, b)
