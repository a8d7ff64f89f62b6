# expect: keep values as arrays (`jnp` functions)
# Sharp bit: the derivative converted to a Python float, which breaks under jax.jit and jax.vmap
import jax


def nth_derivative(f, n):
    g = f
    for _ in range(n):
        g = jax.grad(g)
    return lambda x: float(g(x))
