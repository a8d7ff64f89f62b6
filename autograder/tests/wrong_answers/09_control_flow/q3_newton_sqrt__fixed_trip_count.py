# expect: It took all max_steps steps: stop at the first step whose change is small
# diagnosis: It took all max_steps steps: stop at the first step whose change is small
# Sharp bit: fori_loop always runs max_steps (no early stop), so the step count is wrong
import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, tol=1e-6, max_steps=100):
    """Newton's method for sqrt(a) from x = a; returns (x, number of steps taken)."""
    a = jnp.asarray(a, dtype=jnp.float32)
    x = lax.fori_loop(0, max_steps, lambda i, x: 0.5 * (x + a / x), a)
    return x, max_steps
