# expect: params_placed['w'] is laid out as NamedSharding(mesh, P('data')); expected NamedSharding(mesh, P())
# Sharp bit: wrong PartitionSpec: the weights get P("data"), so each device holds a slice instead of a full copy
def place_for_data_parallel(params, x, y, mesh):
    rows = NamedSharding(mesh, P("data"))
    replicated = NamedSharding(mesh, P())
    placed = {"w": jax.device_put(params["w"], rows), "b": jax.device_put(params["b"], replicated)}
    return placed, jax.device_put(x, rows), jax.device_put(y, rows)
