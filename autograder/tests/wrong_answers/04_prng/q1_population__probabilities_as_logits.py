# expect: categorical takes logits, so pass jnp.log(probs)
# diagnosis: categorical takes logits, so pass jnp.log(probs)
# Sharp bit: categorical takes logits, not probabilities (softmax of probs is too flat)
def sample_population(key, n):
    k_height, k_smoker, k_blood = jax.random.split(key, 3)
    probs = jnp.array([0.40, 0.10, 0.05, 0.45])
    return {
        "height": 170.0 + 10.0 * jax.random.normal(k_height, (n,)),
        "smoker": jax.random.bernoulli(k_smoker, 0.2, (n,)),
        "blood": jax.random.categorical(k_blood, probs, shape=(n,)),
    }
