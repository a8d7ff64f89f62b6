# expect: It is one step fewer: count a step after taking it
# diagnosis: It is one step fewer: count a step after taking it
# Sharp bit: off-by-one, the loop tests convergence of the previous step and runs one step too many
import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, tol=1e-6, max_steps=100):
    """Newton's method for sqrt(a) from x = a; returns (x, number of steps taken)."""
    a = jnp.asarray(a, dtype=jnp.float32)

    def keep_going(carry):
        x, steps = carry
        return (steps <= max_steps) & (jnp.abs(0.5 * (x + a / x) - x) > tol * x)

    def step(carry):
        x, steps = carry
        return 0.5 * (x + a / x), steps + 1

    return lax.while_loop(keep_going, step, (a, 0))
