# expect: It is the running mean before this batch: a value read with refs['total'][...] is a snapshot
# diagnosis: It is the running mean before this batch: a value read with refs['total'][...] is a snapshot
# Sharp bit: values read from the Refs before writing them do not follow the writes
import jax.numpy as jnp


def accumulate(refs, batch):
    total, count = refs["total"][...], refs["count"][...]
    refs["total"][...] = total + jnp.sum(batch)
    refs["count"][...] = count + batch.size
    return total / count
