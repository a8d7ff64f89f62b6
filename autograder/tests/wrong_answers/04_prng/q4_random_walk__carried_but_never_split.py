# expect: Hint: In a scan, each step must split the carried key
# Sharp bit: reused key -- the key rides in the carry but is never split
def random_walk(key, n_steps, sigma=1.0):
    def step(carry, _):
        key, position = carry
        position = position + sigma * jax.random.normal(key)
        return (key, position), position

    _, positions = jax.lax.scan(step, (key, jnp.float32(0.0)), None, length=n_steps)
    return positions
