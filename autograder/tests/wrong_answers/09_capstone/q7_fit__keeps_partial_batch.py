# expect: the last, partial batch of each epoch is kept
# Sharp bit: a changing shape (the last, smaller batch is kept, so the step compiles again)
def fit(key, x_train, y_train, n_epochs, batch_size, lr, momentum, n_hidden):
    """Train the MLP with SGD and momentum; return (params, per-step losses)."""
    init_key, shuffle_key = jax.random.split(key)
    params = init_params(init_key, x_train.shape[1], n_hidden, 10)
    velocity = jax.tree.map(jnp.zeros_like, params)
    step = build_train_step(sgd_momentum_step)
    losses = []
    for epoch in range(n_epochs):
        epoch_key = jax.random.fold_in(shuffle_key, epoch)
        order = np.asarray(jax.random.permutation(epoch_key, len(x_train)))
        for start in range(0, len(x_train), batch_size):
            batch = order[start : start + batch_size]
            params, velocity, loss, _ = step(
                params, velocity, x_train[batch], y_train[batch], lr, momentum
            )
            losses.append(loss)
    return params, jnp.stack(losses)
