# expect: was exported for inputs of shape (2, 4) only: its batch dimension is a fixed number
# Exported for one example batch: its shape, batch included, is fixed in the program
def export_batched(f, n_features):
    """jax.export.Exported of jax.jit(f) for float32 inputs of shape (b, n_features), b symbolic."""
    example = jnp.zeros((2, n_features), jnp.float32)
    return jax.export.export(jax.jit(f))(example)
