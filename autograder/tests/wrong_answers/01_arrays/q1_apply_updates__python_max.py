# expect: Hint: Python's `max`/`min` decide with an `if` on a traced value. Use `jnp.maximum(a, b)`
# Sharp bit: Python's max() on a traced entry works outside jit and fails under it

def apply_updates(x):
    y = x.at[0].set(-1.0)
    y = y.at[1].add(10.0)
    y = y.at[2:5].multiply(3.0)
    return y.at[-1].set(max(y[-1], 0.0))
