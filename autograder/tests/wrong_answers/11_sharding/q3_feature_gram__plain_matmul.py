# expect: Hint: On mesh axes of type `Explicit` JAX works out every result's layout while it traces
# hint: `out_sharding=P()` puts the whole result on every device
# Sharp bit: x.T @ x contracts the split axis; on explicit axes JAX asks where the result lives
def feature_gram(x):
    return x.T @ x / x.shape[0]
