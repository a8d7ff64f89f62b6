# expect: Its hidden units are not split over 'model', so some device held all of w1
# Sharp bit: resharding the weights to P() gathers whole matrices on every device
def mlp_2d(x, w1, w2):
    hidden = jax.nn.relu(x @ reshard(w1, P()))
    return hidden, hidden @ reshard(w2, P())
