# expect: jit it once inside build_data_parallel_step
# Sharp bit: placement and jax.jit redone inside every call (a plain wrapper, compiled per call)
def build_data_parallel_step(step, mesh):
    """step, jitted to take the batch split over mesh axis "data" and the rest replicated."""
    replicated = NamedSharding(mesh, P())
    rows = NamedSharding(mesh, P("data"))

    def parallel_step(params, velocity, x, y, lr, momentum):
        placed = (jax.device_put(params, replicated), jax.device_put(velocity, replicated),
                  jax.device_put(x, rows), jax.device_put(y, rows))
        return jax.jit(step)(*placed, lr, momentum)

    return parallel_step
