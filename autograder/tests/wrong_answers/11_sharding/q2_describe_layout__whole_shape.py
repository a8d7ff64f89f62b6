# expect: describe_layout(a table placed with P('data')): block_shape: expected
# Sharp bit: arr.shape is the whole array's shape, not the block one device holds
def describe_layout(arr):
    spec = tuple(arr.sharding.spec)
    return spec + (None,) * (arr.ndim - len(spec)), arr.shape
