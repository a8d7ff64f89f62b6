# expect: It matches resetting the velocity at the start of every epoch
# Sharp bit: state not carried (the optimiser state is re-created inside the epoch loop)
def fit(key, x_train, y_train, n_epochs, batch_size, lr, momentum, n_hidden):
    """Train the MLP with SGD and momentum; return (params, per-step losses)."""
    init_key, shuffle_key = jax.random.split(key)
    params = init_params(init_key, x_train.shape[1], n_hidden, 10)
    step = build_train_step(sgd_momentum_step)
    n_batches = len(x_train) // batch_size
    losses = []
    for epoch in range(n_epochs):
        velocity = jax.tree.map(jnp.zeros_like, params)
        epoch_key = jax.random.fold_in(shuffle_key, epoch)
        order = np.asarray(jax.random.permutation(epoch_key, len(x_train)))
        for i in range(n_batches):
            batch = order[i * batch_size : (i + 1) * batch_size]
            params, velocity, loss, _ = step(
                params, velocity, x_train[batch], y_train[batch], lr, momentum
            )
            losses.append(loss)
    return params, jnp.stack(losses)
