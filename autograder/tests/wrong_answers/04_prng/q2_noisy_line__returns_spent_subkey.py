# expect: new_key is k_x, the subkey x was drawn with: a used key
# Sharp bit: reused key -- returns a subkey that was already spent on x
def noisy_line(key, n, slope=2.0, intercept=-1.0, noise=0.1):
    key, k_x, k_noise = jax.random.split(key, 3)
    x = jax.random.uniform(k_x, (n,), minval=-1.0, maxval=1.0)
    y = slope * x + intercept + noise * jax.random.normal(k_noise, (n,))
    return k_x, (x, y)
