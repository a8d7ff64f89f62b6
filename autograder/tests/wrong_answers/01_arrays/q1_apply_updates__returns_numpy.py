# expect: apply_updates returned ndarray, not a jax.Array
# Sharp bit: the NumPy copy returned as it is: a NumPy array, not a jax.Array (and no use under jit)
import numpy as np


def apply_updates(x):
    y = np.array(x)
    y[0] = -1.0
    y[1] += 10.0
    y[2:5] *= 3.0
    y[-1] = max(y[-1], 0.0)
    return y
