# expect: it switches shard_map's type checking off (check_vma=False)
# Sharp bit: check_vma=False silences the carry's type error and every other check with it
@functools.partial(jax.jit, static_argnames="mesh")
def smooth_sequences(x, mesh, decay):
    def per_device(block):
        def step(state, column):
            state = decay * state + (1 - decay) * column
            return state, state

        _, states = jax.lax.scan(step, jnp.zeros(block.shape[0], block.dtype), block.T)
        return states.T

    return jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=P("data"),
                         check_vma=False)(x)
