# expect: params can be any pytree (dicts, lists, tuples, None, any depth)
# Sharp bit: a rebuild written for one structure (a dict of layer dicts) instead of a pytree map
def shrink_weights(params, factor):
    return {name: {key: value * factor if key == "w" else value for key, value in layer.items()}
            for name, layer in params.items()}
