# expect: not in bfloat16 (dot_general of float32 and bfloat16)
# The params cast to bfloat16 but x left float32: x @ w promotes to float32, so the products
# run in float32 all the same
def mixed_precision_step(loss_fn, params, x, y, lr):
    """params - lr * grad of loss_fn, computed in bfloat16; the params stay float32."""
    def loss_in_bf16(master):
        cast = jax.tree.map(lambda p: p.astype(jnp.bfloat16), master)
        return loss_fn(cast, x, y)

    grads = jax.grad(loss_in_bf16)(params)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
