# expect: It matches one mask drawn from `key` for the whole batch: give each example its own key
# diagnosis: It matches one mask drawn from `key` for the whole batch: give each example its own key
# Sharp bit: one draw from the parent key for the whole batch, not one key per example
def dropout_per_example(key, x, rate):
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)
