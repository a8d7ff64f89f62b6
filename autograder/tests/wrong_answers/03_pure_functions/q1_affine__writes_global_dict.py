# expect: affine is not pure: calling it changed state outside it (it left a JAX tracer in `CONFIG`['scale']
# Sharp bit: writing into a global dict (no `global` statement): under jit it stores a tracer
CONFIG = {"scale": 1.0}


def affine(x, scale, shift):
    CONFIG["scale"] = scale
    return CONFIG["scale"] * x + shift
