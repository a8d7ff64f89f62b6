# expect: Hint: A Python `while` loop tested a traced value
# Sharp bit: a Python while on a traced value (TracerBoolConversionError under jit)



def newton_sqrt(a, tol=1e-6, max_steps=100):
    """Newton's method for sqrt(a) from x = a; returns (x, number of steps taken)."""
    x, steps = a, 0
    while steps < max_steps:
        new = 0.5 * (x + a / x)
        steps += 1
        converged = abs(new - x) <= tol * new
        x = new
        if converged:
            break
    return x, steps
