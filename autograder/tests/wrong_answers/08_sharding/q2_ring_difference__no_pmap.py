# expect: ring_difference should return the pmap's result, spread over all 8 devices
# Sharp bit: jnp.roll on one device: right numbers, but no device talks to another and nothing is sharded
def ring_difference(x):
    x = jnp.asarray(x)
    return x - jnp.roll(x, 1, axis=0)
