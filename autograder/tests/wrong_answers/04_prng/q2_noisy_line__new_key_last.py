# expect: new_key is k_noise, the subkey the noise was drawn with: a used key
# Sharp bit: split in another order than the one asked for: the key handed back is the last one
import jax


def noisy_line(key, n, slope=2.0, intercept=-1.0, noise=0.1):
    k_x, k_noise, key = jax.random.split(key, 3)
    x = jax.random.uniform(k_x, (n,), minval=-1.0, maxval=1.0)
    y = slope * x + intercept + noise * jax.random.normal(k_noise, (n,))
    return key, (x, y)
