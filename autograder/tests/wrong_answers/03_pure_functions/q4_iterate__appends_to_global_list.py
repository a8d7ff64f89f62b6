# expect: it keeps state between calls, e.g. appends to a list defined outside the function
# Sharp bit: appending to a global list (it keeps growing across calls, and leaks tracers)
import jax.numpy as jnp

history = []


def iterate(x0, steps):
    x = x0
    for _ in range(steps):
        x = 0.9 * jnp.tanh(x) + 0.1
        history.append(x)
    return jnp.stack(history)
