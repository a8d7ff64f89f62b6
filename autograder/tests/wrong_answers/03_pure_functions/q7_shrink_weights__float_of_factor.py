# expect: keep values as arrays (`jnp` functions)
# Sharp bit: float() of the factor, which under jax.jit is a tracer
import jax


def shrink_weights(params, factor):
    factor = float(factor)

    def shrink(path, leaf):
        return leaf * factor if getattr(path[-1], "key", None) == "w" else leaf

    return jax.tree.map_with_path(shrink, params)
