# expect: Hint: A PRNG key was used twice: passed to two draws, or drawn from after it was split.
# Sharp bit: reused key -- splits the key, then still draws the heights from the parent
def sample_population(key, n):
    k_height, k_smoker, k_blood = jax.random.split(key, 3)
    probs = jnp.array([0.40, 0.10, 0.05, 0.45])
    return {
        "height": 170.0 + 10.0 * jax.random.normal(key, (n,)),
        "smoker": jax.random.bernoulli(k_smoker, 0.2, (n,)),
        "blood": jax.random.categorical(k_blood, jnp.log(probs), shape=(n,)),
    }
