# expect: Hint: `jax.grad` has no `static_argnums` (chapter 06): choose the arguments to differentiate with `argnums`
# Sharp bit: static_argnums (a jit option) used to pick the differentiated args; grad has argnums
import jax


def grads_xz(f, x, y, z):
    """Return (df/dx, df/dz) at (x, y, z)."""
    return jax.grad(f, static_argnums=(0, 2))(x, y, z)
