# expect: it does not use jax.lax.scan over time
# A helper named scan, jitted, inside a real shard_map: the name shows in str(jaxpr), and the
# program holds no scan primitive (the smoothing as one matrix product per device)
@jax.jit
def scan(block, decay):
    steps = jnp.arange(block.shape[1])
    gap = steps[None, :] - steps[:, None]
    weights = jnp.where(gap >= 0, (1 - decay) * decay ** jnp.maximum(gap, 0), 0.0)
    return block @ weights.astype(block.dtype)


def smooth_sequences(x, mesh, decay):
    return jax.shard_map(lambda block: scan(block, decay), mesh=mesh, in_specs=P("data"),
                         out_specs=P("data"))(x)
