# expect: Hint: Follow the recipe: hidden_key, output_key = jax.random.split(key)
# Sharp bit: reused key (both layers draw from the same key, so equal-shaped layers start identical)
def init_params(key, n_in, n_hidden, n_out):
    """He-initialised MLP parameters {"hidden": {"w", "b"}, "output": {"w", "b"}}."""
    return {
        "hidden": {
            "w": jax.random.normal(key, (n_in, n_hidden)) * jnp.sqrt(2.0 / n_in),
            "b": jnp.zeros(n_hidden),
        },
        "output": {
            "w": jax.random.normal(key, (n_hidden, n_out)) * jnp.sqrt(2.0 / n_hidden),
            "b": jnp.zeros(n_out),
        },
    }
