# expect: new_key is the key noisy_line was given, which it already split
# Sharp bit: reused key -- hands back the key it was given, so the next call repeats the data
def noisy_line(key, n, slope=2.0, intercept=-1.0, noise=0.1):
    k_x, k_noise = jax.random.split(key)
    x = jax.random.uniform(k_x, (n,), minval=-1.0, maxval=1.0)
    y = slope * x + intercept + noise * jax.random.normal(k_noise, (n,))
    return key, (x, y)
