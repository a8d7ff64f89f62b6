# expect: not a jax.export.Exported: return what jax.export.export(jax.jit(f))(spec) gives
# Returned the jitted function itself: it compiles for any batch, but it is no exported program
def export_batched(f, n_features):
    """jax.export.Exported of jax.jit(f) for float32 inputs of shape (b, n_features), b symbolic."""
    return jax.jit(f)
