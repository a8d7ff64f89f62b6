# expect: close to the true value but not exact (finite differences lose precision in float32
# diagnosis: close to the true value but not exact (finite differences lose precision in float32
# Sharp bit: finite differences instead of jax.grad: float32 rounding makes them inexact
def nth_derivative(f, n, h=1e-3):
    if n == 0:
        return f
    inner = nth_derivative(f, n - 1, h)
    return lambda x: (inner(x + h) - inner(x - h)) / (2 * h)
