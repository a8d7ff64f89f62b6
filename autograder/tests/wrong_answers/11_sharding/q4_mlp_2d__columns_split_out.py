# expect: Its columns are split; add the partial sums: out_sharding=P('data', None)
# Sharp bit: out_sharding=P("data", "model") scatters the output's columns over "model"
def mlp_2d(x, w1, w2):
    hidden = jax.nn.relu(x @ w1)
    return hidden, jnp.matmul(hidden, w2, out_sharding=P("data", "model"))
