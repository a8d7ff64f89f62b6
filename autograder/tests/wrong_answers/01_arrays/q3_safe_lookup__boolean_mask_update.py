# expect: Hint: Boolean-mask indexing gives a shape that depends on the data, which jit cannot compile. Keep the shape fixed: `jnp.where(mask, x, 0)`
# Sharp bit: `.at[mask].set(default)` with a boolean mask works eagerly, not under jit
import jax.numpy as jnp


def safe_lookup(table, idx, default):
    n = table.shape[0]
    out = table[jnp.clip(idx, 0, n - 1)]
    return out.at[(idx < 0) | (idx >= n)].set(default)
