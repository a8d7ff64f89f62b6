# expect: at most half is expected. Wrap each layer in jax.checkpoint
# The whole loss checkpointed at once: the backward pass recomputes every layer and keeps them all
deep_loss_remat = jax.checkpoint(deep_loss)
