# expect: it does not use jax.shard_map or jax.lax.ppermute
# Right values and layout from jit alone: the compiler chooses the communication, not a ring
@functools.partial(jax.jit, static_argnames="mesh")
def collective_matmul(x, w, mesh):
    return jnp.matmul(x, reshard(w, NamedSharding(mesh, P())),
                      out_sharding=NamedSharding(mesh, P("data")))
