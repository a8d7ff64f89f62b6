# expect: It equals x unchanged: `x.at[i].set(v)` returns a new array and leaves x as it is
# diagnosis: It equals x unchanged: `x.at[i].set(v)` returns a new array and leaves x as it is
# Sharp bit: `.at[...].set()` returns a new array; not keeping the result changes nothing
def apply_updates(x):
    x.at[0].set(-1.0)
    x.at[1].add(10.0)
    x.at[2:5].mul(3.0)
    x.at[-1].max(0.0)
    return x
