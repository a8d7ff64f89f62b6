# Sharp bit: Python print for logging (runs only while tracing under jit)
def affine(x, scale, shift):
    print("affine called with scale", scale, "and shift", shift)
    return scale * x + shift
