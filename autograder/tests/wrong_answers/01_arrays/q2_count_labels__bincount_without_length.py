# expect: Hint: `jnp.bincount` under `jit` (chapter 02) must know its output's size: pass a static `length`
# Sharp bit: jnp.bincount without `length` sizes its output from the data: right eagerly, not under jit
import jax.numpy as jnp


def count_labels(labels, num_classes):
    return jnp.bincount(labels)[:num_classes].astype(jnp.int32)
