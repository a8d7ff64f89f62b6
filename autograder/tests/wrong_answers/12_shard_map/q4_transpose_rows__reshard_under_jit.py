# expect: the transpose does not use jax.shard_map or jax.lax.all_to_all
# Sharp bit: under jit, reshard leaves the exchange to the compiler; the question asks for it
@functools.partial(jax.jit, static_argnames="mesh")
def transpose_rows(x, mesh):
    return reshard(x.T, NamedSharding(mesh, P("data")))
