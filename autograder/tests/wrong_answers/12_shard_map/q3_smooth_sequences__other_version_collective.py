# expect: does not exist on this JAX
# hint: which does the same
# Sharp bit: code written for another JAX version calls the collective by that version's name
# (pvary on JAX 0.7.2, pcast from 0.8.2): the fixture calls the name this runtime lacks
@functools.partial(jax.jit, static_argnames="mesh")
def smooth_sequences(x, mesh, decay):
    def per_device(block):
        def step(state, column):
            state = decay * state + (1 - decay) * column
            return state, state

        zeros = jnp.zeros(block.shape[0], block.dtype)
        if hasattr(jax.lax, "pcast"):  # written for JAX 0.7.2, run on a newer JAX
            start = jax.lax.pvary(zeros, "data")
        else:  # written for a newer JAX, run on 0.7.2
            start = jax.lax.pcast(zeros, "data", to="varying")
        _, states = jax.lax.scan(step, start, block.T)
        return states.T

    return jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data"))(x)
