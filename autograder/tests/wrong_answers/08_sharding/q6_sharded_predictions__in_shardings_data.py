# expect: Parameters are replicated, a full copy on every device: `NamedSharding(mesh, P())`
# Sharp bit: in_shardings=P("data") for every input: the parameters' scalar bias cannot be split
def sharded_predictions(params, x, mesh):
    rows = NamedSharding(mesh, P("data"))
    predict = jax.jit(lambda p, a: a @ p["w"] + p["b"], in_shardings=rows, out_shardings=rows)
    return predict(params, x)
