# expect: It is the directional derivative grad(f)(x) . v (jax.jvp of f itself)
# Sharp bit: jvp of f itself gives the directional derivative (a scalar), not of grad(f)
import jax


def hvp(f, x, v):
    """Return the Hessian of f at x times the vector v."""
    return jax.jvp(f, (x,), (v,))[1]
