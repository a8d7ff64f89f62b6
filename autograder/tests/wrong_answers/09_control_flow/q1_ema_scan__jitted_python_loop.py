# expect: ema traces to more operations for 100 steps than for 10: a Python loop is unrolled
# Sharp bit: wrapping a Python loop in jax.jit does not roll it up; the traced body still grows
import jax
import jax.numpy as jnp


@jax.jit
def ema(xs, alpha):
    """Exponential moving average of xs along axis 0; returns every step's average."""
    s = xs[0]
    out = []
    for t in range(xs.shape[0]):
        s = alpha * xs[t] + (1 - alpha) * s
        out.append(s)
    return jnp.stack(out)
