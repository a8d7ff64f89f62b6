# expect: Hint: A sharding that splits an axis, such as `P("data")`, was given to a scalar
# Sharp bit: the whole parameter dict placed with the batch's P("data"): the scalar bias has no axis to split
def place_for_data_parallel(params, x, y, mesh):
    rows = NamedSharding(mesh, P("data"))
    return jax.device_put(params, rows), jax.device_put(x, rows), jax.device_put(y, rows)
