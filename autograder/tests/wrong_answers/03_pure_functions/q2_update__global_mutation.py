# expect: update assigns the global `total`
# Sharp bit: state kept in globals and mutated (under jit the globals capture tracers)
import jax.numpy as jnp

total = 0.0
count = 0


def update(state, batch):
    global total, count
    total = total + jnp.sum(batch)
    count = count + batch.size
    return {"total": total, "count": count}, total / count
