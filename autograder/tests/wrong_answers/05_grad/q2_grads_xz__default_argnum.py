# expect: It equals df/dx: jax.grad differentiates only argument 0 unless told otherwise
# diagnosis: It equals df/dx: jax.grad differentiates only argument 0 unless told otherwise
# Sharp bit: grad's default argnums=0 only differentiates the first argument
import jax


def grads_xz(f, x, y, z):
    """Return (df/dx, df/dz) at (x, y, z)."""
    g = jax.grad(f)
    return g(x, y, z), g(x, y, z)
