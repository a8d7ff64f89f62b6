# expect: The master weights stay float32
# The master weights cast to bfloat16 and kept there: the new params come back bfloat16
def mixed_precision_step(loss_fn, params, x, y, lr):
    """params - lr * grad of loss_fn, computed in bfloat16; the params stay float32."""
    params = jax.tree.map(lambda p: p.astype(jnp.bfloat16), params)
    grads = jax.grad(loss_fn)(params, x.astype(jnp.bfloat16), y.astype(jnp.bfloat16))
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)
