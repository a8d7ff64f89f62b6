# expect: needs more than half the scratch memory (memory_analysis().temp_size_in_bytes) of deep_loss's. Wrap each layer in jax.checkpoint
# No checkpoint at all: right values and gradients, every intermediate kept
def deep_loss_remat(ws, x):
    """deep_loss(ws, x), with each layer wrapped in jax.checkpoint."""
    for w in ws:
        x = layer(w, x)
    return jnp.mean(x**2)
