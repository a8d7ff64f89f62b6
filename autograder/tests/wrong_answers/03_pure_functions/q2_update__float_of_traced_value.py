# expect: Hint: Code needed a concrete (known-at-trace-time) value from a traced array
# Sharp bit: float() needs a concrete value; inside jit the sum is a tracer
import jax.numpy as jnp


def update(state, batch):
    total = state["total"] + float(jnp.sum(batch))
    count = state["count"] + batch.size
    return {"total": total, "count": count}, total / count
