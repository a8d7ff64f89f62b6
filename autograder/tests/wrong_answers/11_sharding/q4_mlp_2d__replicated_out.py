# expect: It is copied to every device; keep its rows split over 'data'
# Sharp bit: out_sharding=P() gathers the whole output on every device
def mlp_2d(x, w1, w2):
    hidden = jax.nn.relu(x @ w1)
    return hidden, jnp.matmul(hidden, w2, out_sharding=P())
