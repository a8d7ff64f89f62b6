# expect: The result is still split; the question asks for a full copy on every device
# Sharp bit: out_sharding=P("data") is allowed, but the result stays split, not replicated
def feature_gram(x):
    return jnp.matmul(x.T, x, out_sharding=P("data")) / x.shape[0]
