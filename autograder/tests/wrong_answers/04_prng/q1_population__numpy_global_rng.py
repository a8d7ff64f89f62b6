# expect: gave different numbers on two calls with the same key: the randomness must come from the key (jax.random), not from NumPy's global generator
# Sharp bit: NumPy's hidden global RNG instead of JAX keys (not reproducible from the key)
def sample_population(key, n):
    return {
        "height": 170.0 + 10.0 * np.random.normal(size=n),
        "smoker": np.random.uniform(size=n) < 0.2,
        "blood": np.random.choice(4, size=n, p=[0.40, 0.10, 0.05, 0.45]),
    }
