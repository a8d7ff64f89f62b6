# expect: It matches df/dy: argnums counts from 0, so z is argument 2
# diagnosis: It matches df/dy: argnums counts from 0, so z is argument 2
# Sharp bit: differentiating w.r.t. the wrong argnum (y at position 1 instead of z at position 2)
import jax


def grads_xz(f, x, y, z):
    """Return (df/dx, df/dz) at (x, y, z)."""
    return jax.grad(f, argnums=(0, 1))(x, y, z)
