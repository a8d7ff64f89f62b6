# expect: deep_loss_remat(ws, x) for 8 layers of width 128 has the right shape () but wrong values
# diagnosis: none (the question's checks know no mistake that gives this value yet)
# Checkpointed per layer, but the sum of squares instead of their mean
def deep_loss_remat(ws, x):
    """deep_loss(ws, x), with each layer wrapped in jax.checkpoint."""
    for w in ws:
        x = jax.checkpoint(layer)(w, x)
    return jnp.sum(x**2)
