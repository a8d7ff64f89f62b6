# expect: update modified the state dict it was given (its entries changed); build and return a new dict instead
# Sharp bit: the caller's state dict is modified in place instead of returning a new one
import jax.numpy as jnp


def update(state, batch):
    state["total"] = state["total"] + jnp.sum(batch)
    state["count"] = state["count"] + batch.size
    return state, state["total"] / state["count"]
