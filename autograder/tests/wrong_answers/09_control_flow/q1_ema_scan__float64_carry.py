# expect: Hint: NumPy (`np.…`, `np.asarray`, `float(...)`) was called on a traced value
# Sharp bit: NumPy (np.asarray) on a traced value, here to force a float64 carry: fails under jit
import numpy as np
from jax import lax


def ema(xs, alpha):
    """Exponential moving average of xs along axis 0; returns every step's average."""
    def step(s, x):
        s = alpha * x + (1 - alpha) * s
        return s, s

    _, averages = lax.scan(step, np.asarray(xs[0], dtype=np.float64), xs)
    return averages
