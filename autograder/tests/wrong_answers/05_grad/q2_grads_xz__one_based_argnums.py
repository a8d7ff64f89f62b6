# expect: Hint: `argnums` counts the function's positional arguments from 0
# Sharp bit: argnums counted from 1, as a mathematician numbers x, y, z: (1, 3) asks for a 4th argument
import jax


def grads_xz(f, x, y, z):
    """Return (df/dx, df/dz) at (x, y, z)."""
    return jax.grad(f, argnums=[1, 3])(x, y, z)
