# expect: Tell jax.jit the layout with out_shardings=NamedSharding(mesh, P('data'))
# Sharp bit: jit alone keeps the computation where the inputs are: one device, nothing sharded
def sharded_predictions(params, x, mesh):
    return jax.jit(lambda p, a: a @ p["w"] + p["b"])(params, x)
