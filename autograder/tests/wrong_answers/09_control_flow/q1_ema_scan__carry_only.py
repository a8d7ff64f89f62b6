# expect: It is only the final average (scan's carry): return the stacked outputs
# Sharp bit: scan returns (final carry, stacked outputs); keeping only the carry loses the history
from jax import lax


def ema(xs, alpha):
    """Exponential moving average of xs along axis 0; returns every step's average."""
    def step(s, x):
        s = alpha * x + (1 - alpha) * s
        return s, s

    final, _ = lax.scan(step, xs[0], xs)
    return final
