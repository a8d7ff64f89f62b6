# expect: it does not use jax.shard_map
# Sharp bit: the average as one matrix product: right values, but neither shard_map nor scan
@functools.partial(jax.jit, static_argnames="mesh")
def smooth_sequences(x, mesh, decay):
    steps = jnp.arange(x.shape[1])
    gap = steps[None, :] - steps[:, None]  # t - t' for input step t' and output step t
    weights = jnp.where(gap >= 0, (1 - decay) * decay ** jnp.maximum(gap, 0), 0.0)
    return x @ weights.astype(x.dtype)
