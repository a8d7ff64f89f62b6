# expect: it loops over the batches in Python. Carry (params, velocity) through one jax.lax.scan
# Sharp bit: Python loop over the batches inside jit (the program grows with the epoch)
def build_epoch(step):
    """A jitted epoch(params, velocity, xs, ys, lr, momentum) -> (params, velocity, losses)."""

    def epoch(params, velocity, xs, ys, lr, momentum):
        losses = []
        for i in range(xs.shape[0]):
            params, velocity, loss, _ = step(params, velocity, xs[i], ys[i], lr, momentum)
            losses.append(loss)
        return params, velocity, jnp.stack(losses)

    return jax.jit(epoch, donate_argnums=(0, 1))
