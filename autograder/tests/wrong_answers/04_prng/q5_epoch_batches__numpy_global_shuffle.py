# expect: gave a different order on a second call with the same key and epoch
# Sharp bit: NumPy's global RNG -- the order ignores the key and changes on every call
def epoch_batches(key, epoch, n, batch_size):
    order = np.random.permutation(n)
    n_batches = n // batch_size
    return jnp.asarray(order[: n_batches * batch_size].reshape(n_batches, batch_size))
