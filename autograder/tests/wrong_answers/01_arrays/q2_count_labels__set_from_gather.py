# expect: `.at[labels].set(...)` keep one write per index, while `.at[labels].add(1)` adds them all
# diagnosis: `.at[labels].set(...)` keep one write per index, while `.at[labels].add(1)` adds them all
# Sharp bit: `.at[idx].set(counts[idx] + 1)` keeps one write per repeated index, not the sum
import jax.numpy as jnp


def count_labels(labels, num_classes):
    counts = jnp.zeros(num_classes, dtype=jnp.int32)
    return counts.at[labels].set(counts[labels] + 1)
