# expect: It matches plain indexing `table[idx]`
# diagnosis: It matches plain indexing `table[idx]`
# Sharp bit: out-of-bounds reads do not raise in JAX; they clamp to the nearest valid index
def safe_lookup(table, idx, default):
    return table[idx]
