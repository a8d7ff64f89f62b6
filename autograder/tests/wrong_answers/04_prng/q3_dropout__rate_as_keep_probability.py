# expect: `rate` is the probability to drop, so keep with jax.random.bernoulli(k, 1.0 - rate, shape)
# diagnosis: `rate` is the probability to drop, so keep with jax.random.bernoulli(k, 1.0 - rate, shape)
# Sharp bit: bernoulli(key, p) is True with probability p -- here p is the drop rate
def dropout_per_example(key, x, rate):
    def one_example(example_key, example):
        keep = jax.random.bernoulli(example_key, rate, example.shape)
        return jnp.where(keep, example / (1.0 - rate), 0.0)

    keys = jax.random.split(key, x.shape[0])
    return jax.vmap(one_example)(keys, x)
