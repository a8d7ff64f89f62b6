# expect: needs more than half the scratch memory (memory_analysis().temp_size_in_bytes) of deep_loss's. Wrap each layer in jax.checkpoint
# Only every other layer checkpointed: the other half still keeps its intermediates
def deep_loss_remat(ws, x):
    """deep_loss(ws, x), with each layer wrapped in jax.checkpoint."""
    for i, w in enumerate(ws):
        x = jax.checkpoint(layer)(w, x) if i % 2 else layer(w, x)
    return jnp.mean(x**2)
