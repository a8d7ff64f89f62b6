# expect: It matches choosing the weights by their shape (every leaf of two or more axes)
# diagnosis: It matches choosing the weights by their shape (every leaf of two or more axes)
# Sharp bit: weights told apart by their shape (a one-axis weight and a two-axis bias fool it)
def add_weight_decay(grads, params, weight_decay):
    """grads, with weight_decay * param added to every leaf whose path ends in the key "w"."""
    return jax.tree.map(lambda g, p: g + weight_decay * p if p.ndim >= 2 else g, grads, params)
