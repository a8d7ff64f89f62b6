# expect: a Python loop is unrolled into one copy of its body per step. Use lax.scan.
# Sharp bit: a Python for loop under jit is unrolled, so the jaxpr grows with the sequence length
import jax.numpy as jnp


def ema(xs, alpha):
    """Exponential moving average of xs along axis 0; returns every step's average."""
    s = xs[0]
    out = []
    for x in xs:
        s = alpha * x + (1 - alpha) * s
        out.append(s)
    return jnp.stack(out)
