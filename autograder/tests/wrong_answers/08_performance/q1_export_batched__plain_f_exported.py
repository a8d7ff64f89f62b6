# expect: Hint: `jax.export.export` exports a jitted function: the function given to it was not jitted
# Exported f itself, not jax.jit(f): export takes a jitted function
def export_batched(f, n_features):
    """jax.export.Exported of jax.jit(f) for float32 inputs of shape (b, n_features), b symbolic."""
    shape = jax.export.symbolic_shape(f"b, {n_features}")
    return jax.export.export(f)(jax.ShapeDtypeStruct(shape, jnp.float32))
