# expect: After the split, do not draw from key itself
# Sharp bit: reused key (the parent key is used again after jax.random.split consumed it)
def init_params(key, n_in, n_hidden, n_out):
    """He-initialised MLP parameters {"hidden": {"w", "b"}, "output": {"w", "b"}}."""
    _, output_key = jax.random.split(key)
    return {
        "hidden": {
            "w": jax.random.normal(key, (n_in, n_hidden)) * jnp.sqrt(2.0 / n_in),
            "b": jnp.zeros(n_hidden),
        },
        "output": {
            "w": jax.random.normal(output_key, (n_hidden, n_out)) * jnp.sqrt(2.0 / n_hidden),
            "b": jnp.zeros(n_out),
        },
    }
