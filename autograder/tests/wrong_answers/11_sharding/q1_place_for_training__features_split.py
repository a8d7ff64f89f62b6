# expect: That splits a later axis (the features); the rows are axis 0: P('data')
# Sharp bit: P(None, "data") splits axis 1, the features, not the rows (examples)
def place_for_training(params, x, y, mesh):
    everywhere = NamedSharding(mesh, P())
    return (jax.device_put(params, everywhere),
            jax.device_put(x, NamedSharding(mesh, P(None, "data"))),
            jax.device_put(y, NamedSharding(mesh, P("data"))))
