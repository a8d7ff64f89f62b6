# expect: affine is not pure: calling it changed state outside it (keyword argument calls= of a functools.partial
# Sharp bit: a functools.partial (no code of its own to read) whose function appends to a list it was given
import functools


def _affine(x, scale, shift, calls):
    calls.append(scale)
    return scale * x + shift


affine = functools.partial(_affine, calls=[])
