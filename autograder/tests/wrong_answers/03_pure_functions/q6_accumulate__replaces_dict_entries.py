# expect: instead of the Ref it was given: write into the Ref, refs['total'][...] = ...
# Sharp bit: assigning to the dict's entry replaces the Ref with an array instead of writing into it
import jax.numpy as jnp


def accumulate(refs, batch):
    refs["total"] = refs["total"][...] + jnp.sum(batch)
    refs["count"] = refs["count"][...] + batch.size
    return refs["total"] / refs["count"]
