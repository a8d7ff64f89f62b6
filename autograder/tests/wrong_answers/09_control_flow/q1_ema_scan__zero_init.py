# expect: It matches starting the average at 0: s_0 = x_0, so start the carry at xs[0]
# diagnosis: It matches starting the average at 0: s_0 = x_0, so start the carry at xs[0]
# Sharp bit: off-by-one start of the recurrence (carry starts at 0, so s_0 = alpha * x_0, not x_0)
import jax.numpy as jnp
from jax import lax


def ema(xs, alpha):
    """Exponential moving average of xs along axis 0; returns every step's average."""
    def step(s, x):
        s = alpha * x + (1 - alpha) * s
        return s, s

    _, averages = lax.scan(step, jnp.zeros_like(xs[0]), xs)
    return averages
