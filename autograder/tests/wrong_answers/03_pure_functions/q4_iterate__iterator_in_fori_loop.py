# expect: It matches writing every step into row 0: Python code in a lax.fori_loop body
# diagnosis: It matches writing every step into row 0: Python code in a lax.fori_loop body
# Sharp bit: next(iterator) in a lax.fori_loop body runs once, at trace time (always slot 0)
import jax.numpy as jnp
from jax import lax


def iterate(x0, steps):
    slots = iter(range(steps))

    def body(i, carry):
        x, out = carry
        x = 0.9 * jnp.tanh(x) + 0.1
        return x, out.at[next(slots)].set(x)

    out = jnp.zeros((steps,) + jnp.shape(x0), dtype=jnp.result_type(x0))
    return lax.fori_loop(0, steps, body, (x0, out))[1]
