# expect: one_hot([2, 0, 1, 2], 3) has the wrong dtype: expected float32, got float64
# Sharp bit: float64 assumed: NumPy's np.eye gives float64 (and NumPy cannot take tracers under jit)
import jax.numpy as jnp
import numpy as np


def one_hot(labels, num_classes, dtype=jnp.float32):
    return np.eye(num_classes)[np.asarray(labels)]
