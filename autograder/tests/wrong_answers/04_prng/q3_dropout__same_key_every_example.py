# expect: examples 0 and 1 got exactly the same mask. Give each example its own key
# Sharp bit: one key shared by every example under vmap (in_axes=None): identical masks
def dropout_per_example(key, x, rate):
    def one_example(example_key, example):
        keep = jax.random.bernoulli(example_key, 1.0 - rate, example.shape)
        return jnp.where(keep, example / (1.0 - rate), 0.0)

    return jax.vmap(one_example, in_axes=(None, 0))(key, x)
