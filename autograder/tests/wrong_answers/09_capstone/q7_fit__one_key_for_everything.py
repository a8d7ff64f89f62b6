# expect: It matches initialising and shuffling with the same key
# Sharp bit: reused key (initialisation and shuffling both draw from the one key)
def fit(key, x_train, y_train, n_epochs, batch_size, lr, momentum, n_hidden):
    """Train the MLP with SGD and momentum; return (params, per-step losses)."""
    params = init_params(key, x_train.shape[1], n_hidden, 10)
    velocity = jax.tree.map(jnp.zeros_like, params)
    step = build_train_step(sgd_momentum_step)
    n_batches = len(x_train) // batch_size
    losses = []
    for epoch in range(n_epochs):
        order = np.asarray(jax.random.permutation(jax.random.fold_in(key, epoch), len(x_train)))
        for i in range(n_batches):
            batch = order[i * batch_size : (i + 1) * batch_size]
            params, velocity, loss, _ = step(
                params, velocity, x_train[batch], y_train[batch], lr, momentum
            )
            losses.append(loss)
    return params, jnp.stack(losses)
