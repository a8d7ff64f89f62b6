# expect: has the wrong structure
# Sharp bit: the leaves are scaled by path but returned as a flat list, not rebuilt into the tree
import jax


def shrink_weights(params, factor):
    return [leaf * factor if getattr(path[-1], "key", None) == "w" else leaf
            for path, leaf in jax.tree.leaves_with_path(params)]
