# expect: Every leaf was scaled, the biases too: scale only the leaves whose own key
# diagnosis: Every leaf was scaled, the biases too: scale only the leaves whose own key
# Sharp bit: jax.tree.map over every leaf, with no look at the path
import jax


def shrink_weights(params, factor):
    return jax.tree.map(lambda leaf: leaf * factor, params)
