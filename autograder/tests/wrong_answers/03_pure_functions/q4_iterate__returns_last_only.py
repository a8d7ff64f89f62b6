# expect: It is only the last iterate: return every step's value, stacked
# Sharp bit: only the final carry is returned; the history has to be an output
import jax.numpy as jnp


def iterate(x0, steps):
    x = x0
    for _ in range(steps):
        x = 0.9 * jnp.tanh(x) + 0.1
    return x
