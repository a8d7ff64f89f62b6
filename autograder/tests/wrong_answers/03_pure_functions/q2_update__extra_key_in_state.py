# expect: the new state should be a dict with keys 'total' and 'count'
# Sharp bit: the mean stored in the state as well, so the state's keys change
import jax.numpy as jnp


def update(state, batch):
    total = state["total"] + jnp.sum(batch)
    count = state["count"] + batch.size
    return {"total": total, "count": count, "mean": total / count}, total / count
