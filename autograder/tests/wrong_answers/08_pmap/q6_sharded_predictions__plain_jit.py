# Sharp bit: jit alone keeps the computation where the inputs are: one device, nothing sharded
def sharded_predictions(params, x, mesh):
    return jax.jit(lambda p, a: a @ p["w"] + p["b"])(params, x)
