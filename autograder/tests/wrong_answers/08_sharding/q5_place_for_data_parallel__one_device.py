# expect: x_placed is laid out as a single device; expected NamedSharding(mesh, P('data'))
# Sharp bit: device_put to a single device commits the batch there; nothing is split across the mesh
def place_for_data_parallel(params, x, y, mesh):
    first = jax.devices()[0]
    replicated = NamedSharding(mesh, P())
    return jax.device_put(params, replicated), jax.device_put(x, first), jax.device_put(y, first)
