# expect: It matches H * v, broadcast to an n x n array: H(x) v is the matrix product H @ v
# Sharp bit: wrong product, broadcasting H * v (an n x n array) instead of the matrix product H @ v
import jax


def hvp(f, x, v):
    """Return the Hessian of f at x times the vector v."""
    return jax.hessian(f)(x) * v
