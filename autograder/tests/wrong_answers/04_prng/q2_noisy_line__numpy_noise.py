# expect: noisy_line gave a different y on two calls with the same key: the noise must come from the key
# Sharp bit: NumPy's global RNG for the noise -- hidden state, not reproducible from the key
def noisy_line(key, n, slope=2.0, intercept=-1.0, noise=0.1):
    key, k_x, k_noise = jax.random.split(key, 3)
    x = jax.random.uniform(k_x, (n,), minval=-1.0, maxval=1.0)
    y = slope * x + intercept + noise * np.random.normal(size=n)
    return key, (x, y)
