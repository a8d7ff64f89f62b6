# expect: grad(f) returns a vector, so jax.grad cannot differentiate it again
# Sharp bit: grad(grad(f)) needs a scalar output, but grad(f) of a vector input returns a vector
import jax


def hvp(f, x, v):
    """Return the Hessian of f at x times the vector v."""
    return jax.grad(jax.grad(f))(x) @ v
