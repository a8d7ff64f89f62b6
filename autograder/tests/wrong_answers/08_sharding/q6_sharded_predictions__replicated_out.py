# expect: P() replicates every prediction on every device
# Sharp bit: wrong PartitionSpec for the output: P() replicates every prediction on every device
def sharded_predictions(params, x, mesh):
    predict = jax.jit(lambda p, a: a @ p["w"] + p["b"], out_shardings=NamedSharding(mesh, P()))
    return predict(params, x)
