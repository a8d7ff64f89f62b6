# expect: It matches grad(f)(x) * v, which has only first derivatives
# diagnosis: It matches grad(f)(x) * v, which has only first derivatives
# Sharp bit: first derivative only, elementwise gradient * v instead of the Hessian times v
import jax


def hvp(f, x, v):
    """Return the Hessian of f at x times the vector v."""
    return jax.grad(f)(x) * v
