# expect: it loops over the batch in Python. Use `jax.vmap`
# Sharp bit: Python loop over the batch where vmap was asked (program grows with the batch)
def dropout_per_example(key, x, rate):
    rows = []
    for example_key, example in zip(jax.random.split(key, x.shape[0]), x, strict=True):
        keep = jax.random.bernoulli(example_key, 1.0 - rate, example.shape)
        rows.append(jnp.where(keep, example / (1.0 - rate), 0.0))
    return jnp.stack(rows)
