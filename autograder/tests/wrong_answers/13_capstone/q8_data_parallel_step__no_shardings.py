# expect: takes x whole, on one device; expected P('data', None) on the mesh passed in
# Sharp bit: jit without shardings (host arrays land on one device; the mesh is never used)
def build_data_parallel_step(step, mesh):
    """step, jitted to take the batch split over mesh axis "data" and the rest replicated."""
    return jax.jit(step)
