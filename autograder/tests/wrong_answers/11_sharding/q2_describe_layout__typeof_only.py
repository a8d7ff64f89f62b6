# expect: describe_layout(a table placed with P('data') on automatic axes): spec: expected
# Sharp bit: jax.typeof carries the layout only on explicit mesh axes; on Auto ones it shows none
def describe_layout(arr):
    return tuple(jax.typeof(arr).sharding.spec), tuple(arr.sharding.shard_shape(arr.shape))
