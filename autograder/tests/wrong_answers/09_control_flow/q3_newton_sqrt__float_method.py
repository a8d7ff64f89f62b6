# expect: Hint: A plain Python number reached code that expects an array (`.astype`, `.shape`, `.at`, indexing)
# Sharp bit: a Python float has no array methods: `a.astype(...)` fails when a is 2.0, not an array
import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, tol=1e-6, max_steps=100):
    """Newton's method for sqrt(a) from x = a; returns (x, number of steps taken)."""
    a = a.astype(jnp.float32)

    def keep_going(carry):
        _, steps, converged = carry
        return (steps < max_steps) & ~converged

    def step(carry):
        x, steps, _ = carry
        new = 0.5 * (x + a / x)
        return new, steps + 1, jnp.abs(new - x) <= tol * new

    x, steps, _ = lax.while_loop(keep_going, step, (a, 0, False))
    return x, steps
