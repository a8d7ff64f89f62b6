# expect: each epoch must derive its own key from it: `epoch_key = jax.random.fold_in(key, epoch)`
# Sharp bit: reused key -- the run's key is used directly, so every epoch has the same order
def epoch_batches(key, epoch, n, batch_size):
    order = jax.random.permutation(key, n)
    n_batches = n // batch_size
    return order[: n_batches * batch_size].reshape(n_batches, batch_size)
