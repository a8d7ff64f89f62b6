# expect: repeats some indices: each example should appear at most once per epoch
# Sharp bit: jax.random.choice samples with replacement by default -- indices repeat
def epoch_batches(key, epoch, n, batch_size):
    epoch_key = jax.random.fold_in(key, epoch)
    return jax.random.choice(epoch_key, n, (n // batch_size, batch_size))
