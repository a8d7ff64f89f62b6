# expect: A leaf was scaled because a key 'w' appears somewhere on its path
# diagnosis: A leaf was scaled because a key 'w' appears somewhere on its path
# Sharp bit: looking for the key 'w' anywhere on the path, so a list stored under 'w' is scaled too
import jax


def shrink_weights(params, factor):
    def shrink(path, leaf):
        keys = [getattr(k, "key", None) for k in path]
        return leaf * factor if "w" in keys else leaf

    return jax.tree.map_with_path(shrink, params)
