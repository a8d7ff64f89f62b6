# expect: Hint: `jax.grad` differentiates with respect to float inputs
# hint: differentiate with respect to another argument (`argnums`)
# Sharp bit: differentiates with respect to y too and drops it: fails when y is integer data
import jax


def grads_xz(f, x, y, z):
    dx, _, dz = jax.grad(f, argnums=(0, 1, 2))(x, y, z)
    return dx, dz
