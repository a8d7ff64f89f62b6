# expect: a 'norm:' line shows a tracer, not a number
# Sharp bit: Python print inside jit runs only while tracing, and prints a tracer
import jax.numpy as jnp


def normalise(x):
    norm = jnp.linalg.norm(x)
    print("norm:", norm)
    return x / norm
