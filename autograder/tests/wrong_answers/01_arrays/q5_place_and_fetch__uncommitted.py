# expect: on_device is not committed to a device; use jax.device_put(x, device)
# Sharp bit: jnp.asarray puts data on the default device but leaves it uncommitted
import jax.numpy as jnp
import numpy as np


def place_and_fetch(x, device):
    on_device = jnp.asarray(x) * 2
    return on_device, np.array(on_device)
