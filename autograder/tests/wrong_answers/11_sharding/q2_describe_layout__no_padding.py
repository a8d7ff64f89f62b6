# expect: describe_layout(a table placed with P('data')): spec: expected
# Sharp bit: the spec as written, P("data"), names fewer entries than the array has axes
def describe_layout(arr):
    return tuple(arr.sharding.spec), tuple(arr.sharding.shard_shape(arr.shape))
