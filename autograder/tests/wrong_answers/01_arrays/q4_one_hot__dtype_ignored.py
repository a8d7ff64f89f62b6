# expect: has the wrong dtype: expected bfloat16, got float32
# Sharp bit: dtype argument ignored: always JAX's default float32
import jax.numpy as jnp


def one_hot(labels, num_classes, dtype=jnp.float32):
    return jnp.eye(num_classes)[labels]
