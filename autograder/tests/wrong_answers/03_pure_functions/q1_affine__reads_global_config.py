# expect: It matches the first call's scale and shift (2.0, 1.0)
# diagnosis: It matches the first call's scale and shift (2.0, 1.0)
# Sharp bit: global read at trace time: a jitted function keeps the CONFIG it saw first
CONFIG = {"scale": 2.0, "shift": 1.0}


def affine(x, scale, shift):
    return CONFIG["scale"] * x + CONFIG["shift"]
