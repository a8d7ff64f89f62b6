# expect: A leaf was scaled because a key 'w' appears somewhere on its path
# diagnosis: A leaf was scaled because a key 'w' appears somewhere on its path
# Sharp bit: choosing by a letter anywhere in the path's text, not by the leaf's own key
import jax


def shrink_weights(params, factor):
    def shrink(path, leaf):
        return leaf * factor if "w" in jax.tree_util.keystr(path) else leaf

    return jax.tree.map_with_path(shrink, params)
