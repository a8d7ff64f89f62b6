# expect: times too large: divide the sum x.T @ x by the number of rows
# diagnosis: times too large: divide the sum x.T @ x by the number of rows
# Sharp bit: the Gram matrix summed over rows, not averaged
def feature_gram(x):
    return jnp.matmul(x.T, x, out_sharding=P())
