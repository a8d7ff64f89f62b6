# expect: affine's helper `_remember` assigns the global `_last_scale`
# Sharp bit: the global is assigned in a helper, not in the function itself
_last_scale = None


def _remember(scale):
    global _last_scale
    _last_scale = scale


def affine(x, scale, shift):
    _remember(scale)
    return scale * x + shift
