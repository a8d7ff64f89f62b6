# expect: every step is the same, a straight line
# Sharp bit: NumPy RNG inside a traced body runs once, at trace time (a constant step)
def random_walk(key, n_steps, sigma=1.0):
    def step(position, _):
        position = position + sigma * np.random.normal()
        return position, position

    _, positions = jax.lax.scan(step, jnp.float32(0.0), None, length=n_steps)
    return positions
