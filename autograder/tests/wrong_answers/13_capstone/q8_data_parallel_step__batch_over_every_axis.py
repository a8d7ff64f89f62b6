# expect: Split the rows over 'data' only; the other mesh axes hold copies: P('data')
# Sharp bit: rows split over every mesh axis (on a data x model mesh, "model" must hold copies)
def build_data_parallel_step(step, mesh):
    """step, jitted to take the batch split over mesh axis "data" and the rest replicated."""
    replicated = NamedSharding(mesh, P())
    rows = NamedSharding(mesh, P(mesh.axis_names))
    return jax.jit(step, in_shardings=(replicated, replicated, rows, rows, replicated, replicated),
                   out_shardings=replicated)
