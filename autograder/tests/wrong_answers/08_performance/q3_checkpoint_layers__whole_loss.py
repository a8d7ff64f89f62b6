# expect: needs more than half the scratch memory (memory_analysis().temp_size_in_bytes) of deep_loss's. Wrap each layer in jax.checkpoint
# The whole loss checkpointed at once: the backward pass recomputes every layer and keeps them all
deep_loss_remat = jax.checkpoint(deep_loss)
