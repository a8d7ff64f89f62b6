# expect: on_host is read-only
# Sharp bit: np.asarray of a jax.Array is a read-only view, not a writable copy
import jax
import numpy as np


def place_and_fetch(x, device):
    on_device = jax.device_put(x, device) * 2
    return on_device, np.asarray(on_device)
