# expect: not in bfloat16 (dot_general of float32 and float32)
# Right values and dtypes, but the whole step in float32: no product runs in bfloat16
def mixed_precision_step(loss_fn, params, x, y, lr):
    """params - lr * grad of loss_fn, computed in bfloat16; the params stay float32."""
    grads = jax.grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
