# expect: mark the zeros varying before the scan
# Sharp bit: zeros are invariant, the sequences varying: the carry changes type in the first step
@functools.partial(jax.jit, static_argnames="mesh")
def smooth_sequences(x, mesh, decay):
    def per_device(block):
        def step(state, column):
            state = decay * state + (1 - decay) * column
            return state, state

        _, states = jax.lax.scan(step, jnp.zeros(block.shape[0], block.dtype), block.T)
        return states.T

    return jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data"))(x)
