# expect: P() copies the whole batch to every device; split its rows: P('data')
# Sharp bit: the batch replicated like the parameters (every device does all the work)
def build_data_parallel_step(step, mesh):
    """step, jitted to take the batch split over mesh axis "data" and the rest replicated."""
    replicated = NamedSharding(mesh, P())
    return jax.jit(step, in_shardings=replicated, out_shardings=replicated)
