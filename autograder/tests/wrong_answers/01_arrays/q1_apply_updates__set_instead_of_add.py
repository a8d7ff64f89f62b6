# expect: It matches `.at[1].set(10.0)`, which overwrites; `y[1] += 10.0` adds
# diagnosis: It matches `.at[1].set(10.0)`, which overwrites; `y[1] += 10.0` adds
# Sharp bit: `.at[i].set(v)` overwrites; `y[1] += 10` is `.at[1].add(10)`
def apply_updates(x):
    x = x.at[0].set(-1.0)
    x = x.at[1].set(10.0)
    x = x.at[2:5].mul(3.0)
    x = x.at[-1].max(0.0)
    return x
