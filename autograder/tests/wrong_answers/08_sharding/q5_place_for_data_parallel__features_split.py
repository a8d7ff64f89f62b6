# expect: That splits a later axis (the features); the rows are axis 0: P('data')
# Sharp bit: wrong axis in the PartitionSpec: P(None, "data") splits the features of x, not its rows
def place_for_data_parallel(params, x, y, mesh):
    replicated = NamedSharding(mesh, P())
    return (jax.device_put(params, replicated), jax.device_put(x, NamedSharding(mesh, P(None, "data"))),
            jax.device_put(y, NamedSharding(mesh, P("data"))))
