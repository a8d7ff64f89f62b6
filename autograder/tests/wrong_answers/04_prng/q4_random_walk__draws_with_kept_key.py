# expect: draw with `subkey` and carry `key` on
# diagnosis: draw with `subkey` and carry `key` on
# Sharp bit: reused key -- draws with the key it keeps, which the next step splits again
def random_walk(key, n_steps, sigma=1.0):
    def step(carry, _):
        key, position = carry
        key, subkey = jax.random.split(key)
        position = position + sigma * jax.random.normal(key)
        return (key, position), position

    _, positions = jax.lax.scan(step, (key, jnp.float32(0.0)), None, length=n_steps)
    return positions
