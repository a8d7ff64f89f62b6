# expect: It is the transpose of what was asked: one row per label, one column per class
# Sharp bit: wrong axis: indexing columns gives (num_classes, n), the transpose of what was asked
import jax.numpy as jnp


def one_hot(labels, num_classes, dtype=jnp.float32):
    return jnp.eye(num_classes, dtype=dtype)[:, labels]
