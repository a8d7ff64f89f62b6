# expect: affine assigns the global `CONFIG`: under jit that happens once, at trace time
# Sharp bit: assigning a global inside the function (it happens once, at trace time, under jit)
CONFIG = {"scale": 2.0, "shift": 1.0}


def affine(x, scale, shift):
    global CONFIG
    CONFIG = {"scale": scale, "shift": shift}
    return CONFIG["scale"] * x + CONFIG["shift"]
