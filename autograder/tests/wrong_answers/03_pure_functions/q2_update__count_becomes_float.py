# expect: dtype
# Sharp bit: the count computed as a float sum, so the state's int32 count comes back float32
import jax.numpy as jnp


def update(state, batch):
    total = state["total"] + jnp.sum(batch)
    count = state["count"] + jnp.sum(jnp.ones_like(batch))
    return {"total": total, "count": count}, total / count
