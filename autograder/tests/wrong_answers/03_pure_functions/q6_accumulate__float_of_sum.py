# expect: keep values as arrays (`jnp` functions)
# Sharp bit: float() of the batch's sum works on plain calls, but under jax.jit the sum is a tracer
import jax.numpy as jnp


def accumulate(refs, batch):
    refs["total"][...] += float(jnp.sum(batch))
    refs["count"][...] += batch.size
    return refs["total"][...] / refs["count"][...]
