# expect: Split it first, `key, subkey = jax.random.split(key)`, draw only with the new keys
# Sharp bit: reused key -- x and the noise come from the same key, so they are correlated
def noisy_line(key, n, slope=2.0, intercept=-1.0, noise=0.1):
    key, k_data = jax.random.split(key)
    x = jax.random.uniform(k_data, (n,), minval=-1.0, maxval=1.0)
    y = slope * x + intercept + noise * jax.random.normal(k_data, (n,))
    return key, (x, y)
