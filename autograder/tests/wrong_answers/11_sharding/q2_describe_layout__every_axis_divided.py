# expect: describe_layout(a table placed with P('data')): block_shape: expected
# Sharp bit: dividing every axis by the device count: only the split axes are divided
def describe_layout(arr):
    spec = tuple(arr.sharding.spec)
    devices = len(arr.sharding.device_set)
    return spec + (None,) * (arr.ndim - len(spec)), tuple(s // devices for s in arr.shape)
