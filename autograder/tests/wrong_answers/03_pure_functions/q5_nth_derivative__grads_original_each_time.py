# expect: It matches the first derivative: apply each jax.grad to the previous result
# diagnosis: It matches the first derivative: apply each jax.grad to the previous result
# Sharp bit: composing transformations wrongly: grad of the original f each time, not of the result
import jax


def nth_derivative(f, n):
    g = f
    for _ in range(n):
        g = jax.grad(f)
    return g
