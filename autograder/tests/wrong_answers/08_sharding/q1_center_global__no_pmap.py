# expect: center_global should return the pmap's result, spread over all 8 devices; this one lives on 1 device(s)
# Sharp bit: plain jnp on one device: right numbers, but nothing runs in parallel or stays sharded
def center_global(x, scale):
    x = jnp.asarray(x)
    flat = x.reshape(-1, x.shape[-1])
    return scale * (x - flat.mean(axis=0))
