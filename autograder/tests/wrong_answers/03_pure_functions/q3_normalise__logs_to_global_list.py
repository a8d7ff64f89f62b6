# expect: logged 0 'norm:' lines; expected exactly one on every call
# Sharp bit: appending a traced value to a global list to log it (a leaked tracer, no output)
import jax.numpy as jnp

NORMS = []


def normalise(x):
    norm = jnp.linalg.norm(x)
    NORMS.append(norm)
    return x / norm
