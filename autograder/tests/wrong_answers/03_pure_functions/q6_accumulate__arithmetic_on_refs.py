# expect: A Ref is not an array: compute with its value, `ref[...]`
# Sharp bit: dividing the Refs themselves instead of their values
import jax.numpy as jnp


def accumulate(refs, batch):
    refs["total"][...] += jnp.sum(batch)
    refs["count"][...] += batch.size
    return refs["total"] / refs["count"]
