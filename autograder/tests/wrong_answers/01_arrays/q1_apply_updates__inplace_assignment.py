# expect: Hint: JAX arrays are immutable. Instead of `x[i] = v`, write `x = x.at[i].set(v)`
# Sharp bit: in-place update `x[i] = v` (JAX arrays are immutable; use x.at[i].set(v))
def apply_updates(x):
    x[0] = -1.0
    x[1] += 10.0
    x[2:5] *= 3.0
    x[-1] = max(x[-1], 0.0)
    return x
