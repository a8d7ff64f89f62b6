# expect: It ran past max_steps: the loop must also stop when steps reaches max_steps
# diagnosis: It ran past max_steps: the loop must also stop when steps reaches max_steps
# Sharp bit: the while_loop condition forgets the step cap, so max_steps is never enforced
import jax.numpy as jnp
from jax import lax


def newton_sqrt(a, tol=1e-6, max_steps=100):
    """Newton's method for sqrt(a) from x = a; returns (x, number of steps taken)."""
    a = jnp.asarray(a, dtype=jnp.float32)

    def step(carry):
        x, steps, _ = carry
        new = 0.5 * (x + a / x)
        return new, steps + 1, jnp.abs(new - x) <= tol * new

    x, steps, _ = lax.while_loop(lambda c: ~c[2], step, (a, 0, False))
    return x, steps
