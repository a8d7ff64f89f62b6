# expect: A key that the body closes over, or carries without splitting, is used again on every step
# Sharp bit: reused key -- the scan body closes over one key, so every step is the same
def random_walk(key, n_steps, sigma=1.0):
    def step(position, _):
        position = position + sigma * jax.random.normal(key)
        return position, position

    _, positions = jax.lax.scan(step, jnp.float32(0.0), None, length=n_steps)
    return positions
