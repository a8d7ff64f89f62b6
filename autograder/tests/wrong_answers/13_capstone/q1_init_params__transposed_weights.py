# expect: ['hidden']['w'] has shape (7, 5), the transpose of (5, 7): the weights are (inputs, outputs), used as x @ w
# Sharp bit: wrong axis order (weights stored as (fan_out, fan_in), PyTorch style; square layers hide it)
def init_params(key, n_in, n_hidden, n_out):
    """He-initialised MLP parameters {"hidden": {"w", "b"}, "output": {"w", "b"}}."""
    hidden_key, output_key = jax.random.split(key)
    return {
        "hidden": {
            "w": jax.random.normal(hidden_key, (n_hidden, n_in)) * jnp.sqrt(2.0 / n_in),
            "b": jnp.zeros(n_hidden),
        },
        "output": {
            "w": jax.random.normal(output_key, (n_out, n_hidden)) * jnp.sqrt(2.0 / n_hidden),
            "b": jnp.zeros(n_out),
        },
    }
