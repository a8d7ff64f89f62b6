# expect: The Refs still hold the values they started with
# diagnosis: The Refs still hold the values they started with
# Sharp bit: the running sums kept in Python globals beside the Refs, which are never written
import jax.numpy as jnp

_total, _count = 0.0, 0


def accumulate(refs, batch):
    global _total, _count
    _total = _total + jnp.sum(batch)
    _count = _count + batch.size
    return (refs["total"][...] + _total) / (refs["count"][...] + _count)
