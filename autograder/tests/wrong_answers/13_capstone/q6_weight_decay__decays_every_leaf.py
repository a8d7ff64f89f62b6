# expect: It matches decaying every leaf, biases and scales too
# diagnosis: It matches decaying every leaf, biases and scales too
# Sharp bit: weight decay on every leaf (jax.tree.map cannot tell a weight from a bias or a scale)
def add_weight_decay(grads, params, weight_decay):
    """grads, with weight_decay * param added to every leaf whose path ends in the key "w"."""
    return jax.tree.map(lambda g, p: g + weight_decay * p, grads, params)
