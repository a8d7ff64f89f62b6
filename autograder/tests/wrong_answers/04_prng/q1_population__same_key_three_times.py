# expect: KeyReuseError: Previously-consumed key passed to jit-compiled function
# hint: Split it first, `key, subkey = jax.random.split(key)`
# Sharp bit: reused key -- all three draws come from the same key, so they are correlated
def sample_population(key, n):
    probs = jnp.array([0.40, 0.10, 0.05, 0.45])
    return {
        "height": 170.0 + 10.0 * jax.random.normal(key, (n,)),
        "smoker": jax.random.bernoulli(key, 0.2, (n,)),
        "blood": jax.random.categorical(key, jnp.log(probs), shape=(n,)),
    }
