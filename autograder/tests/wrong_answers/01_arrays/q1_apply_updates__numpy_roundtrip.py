# expect: NumPy (`np.…`, `np.asarray`, `float(...)`) was called on a traced value
# Sharp bit: NumPy copy updated in place, then converted back (fails under jit: no values)
import jax.numpy as jnp
import numpy as np


def apply_updates(x):
    y = np.array(x)
    y[0] = -1.0
    y[1] += 10.0
    y[2:5] *= 3.0
    y[-1] = max(y[-1], 0.0)
    return jnp.asarray(y)
