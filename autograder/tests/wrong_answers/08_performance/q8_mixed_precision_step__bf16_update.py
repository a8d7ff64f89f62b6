# expect: It matches the update done in bfloat16
# diagnosis: It matches the update done in bfloat16: the master params and the update stay float32, only the forward and backward passes run in bfloat16.
# Float32 params returned, but the update computed in bfloat16 first: a step of lr * g,
# smaller than the weights' spacing, is rounded away before the cast back
def mixed_precision_step(loss_fn, params, x, y, lr):
    """params - lr * grad of loss_fn, computed in bfloat16; the params stay float32."""
    cast = jax.tree.map(lambda p: p.astype(jnp.bfloat16), params)
    grads = jax.grad(loss_fn)(cast, x.astype(jnp.bfloat16), y.astype(jnp.bfloat16))
    return jax.tree.map(lambda p, g: (p - lr * g).astype(jnp.float32), cast, grads)
