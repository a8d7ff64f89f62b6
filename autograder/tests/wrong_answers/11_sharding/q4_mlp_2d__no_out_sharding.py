# expect: Hint: On mesh axes of type `Explicit` JAX works out every result's layout while it traces
# hint: `jnp.matmul(a, b, out_sharding=P("data", None))` keeps the rows split over "data"
# Sharp bit: hidden @ w2 contracts the axis split over "model": the sum needs out_sharding
def mlp_2d(x, w1, w2):
    hidden = jax.nn.relu(x @ w1)
    return hidden, hidden @ w2
