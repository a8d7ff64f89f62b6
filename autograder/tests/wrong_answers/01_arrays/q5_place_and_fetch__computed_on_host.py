# expect: on_device is a ndarray, not a jax.Array: put x on the device with jax.device_put(x, device)
# Sharp bit: arithmetic on the NumPy input stays on the host (float64 NumPy), nothing is placed
def place_and_fetch(x, device):
    doubled = 2 * x
    return doubled, doubled.copy()
