# expect: has the wrong dtype: expected int32, got float32
# Sharp bit: dtype left to the default: jnp.zeros gives float32 counts, not the int32 asked for
import jax.numpy as jnp


def count_labels(labels, num_classes):
    return jnp.zeros(num_classes).at[labels].add(1)
