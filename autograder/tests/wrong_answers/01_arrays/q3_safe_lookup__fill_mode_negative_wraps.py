# Sharp bit: mode="fill" fills only what is out of range after negative indices wrap (-1: last)
def safe_lookup(table, idx, default):
    return table.at[idx].get(mode="fill", fill_value=default)
