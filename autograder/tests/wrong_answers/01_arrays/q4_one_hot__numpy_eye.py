# expect: Hint: NumPy (`np.…`, `np.asarray`, `float(...)`) was called on a traced value
# Sharp bit: NumPy's eye indexed with the labels: right eagerly, but NumPy cannot take tracers under jit
import jax.numpy as jnp
import numpy as np


def one_hot(labels, num_classes, dtype=jnp.float32):
    return jnp.asarray(np.eye(num_classes)[np.asarray(labels)], dtype=dtype)
