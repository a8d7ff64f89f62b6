# expect: negative indices still wrap around (-1 reads the last entry), so only idx >= len(table) gets the default
# diagnosis: negative indices still wrap around (-1 reads the last entry), so only idx >= len(table) gets the default
# Sharp bit: mode="fill" fills only what is out of range after negative indices wrap (-1: last)
def safe_lookup(table, idx, default):
    return table.at[idx].get(mode="fill", fill_value=default)
