# expect: Use `jax.numpy` (`jnp.…`) for computations on traced arrays
# Sharp bit: a NumPy buffer filled in a loop works eagerly, but NumPy cannot hold traced values
import jax.numpy as jnp
import numpy as np


def iterate(x0, steps):
    out = np.zeros((steps,) + np.shape(x0), dtype=np.float32)
    x = x0
    for k in range(steps):
        x = 0.9 * jnp.tanh(x) + 0.1
        out[k] = x
    return jnp.asarray(out)
