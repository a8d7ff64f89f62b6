# expect: Hint: A tracer escaped its transformation
# hint: Return values instead of saving them on the side
# Sharp bit: the question's jitted step kept, its global list read afterwards: it holds one tracer from the trace
import jax
import jax.numpy as jnp

history = []


@jax.jit
def step(x):
    y = 0.9 * jnp.tanh(x) + 0.1
    history.append(y)
    return y


def iterate(x0, steps):
    history.clear()
    x = x0
    for _ in range(steps):
        x = step(x)
    return jnp.stack(history)
