# expect: It matches the derivative of one order lower: apply jax.grad n times
# diagnosis: It matches the derivative of one order lower: apply jax.grad n times
# Sharp bit: off by one: range(n - 1) applies grad one time too few
import jax


def nth_derivative(f, n):
    for _ in range(max(n - 1, 0)):
        f = jax.grad(f)
    return f
