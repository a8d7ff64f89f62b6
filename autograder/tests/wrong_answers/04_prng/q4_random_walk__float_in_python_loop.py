# expect: Hint: Code needed a concrete (known-at-trace-time) value from a traced array
# hint: keep values as arrays
# Sharp bit: a Python loop of float() steps: right eagerly, but float() of a traced value fails under jit
import jax
import jax.numpy as jnp


def random_walk(key, n_steps, sigma=1.0):
    position, positions = 0.0, []
    for _ in range(n_steps):
        key, subkey = jax.random.split(key)
        position = position + sigma * float(jax.random.normal(subkey))
        positions.append(position)
    return jnp.array(positions, dtype=jnp.float32)
