# expect: affine prints from Python ('affine called on x of shape (3,)'): under jit that only happens while tracing. Use `jax.debug.print`
# Sharp bit: Python print for logging (runs only while tracing under jit)
def affine(x, scale, shift):
    print("affine called on x of shape", x.shape)
    return scale * x + shift
