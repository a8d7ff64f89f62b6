# expect: donate them (jax.jit(..., donate_argnums=(0, 1)))
# Sharp bit: no donation (the old parameters and velocity stay alive beside the new ones)
def build_epoch(step):
    """A jitted epoch(params, velocity, xs, ys, lr, momentum) -> (params, velocity, losses)."""

    def epoch(params, velocity, xs, ys, lr, momentum):
        def one_batch(carry, batch):
            params, velocity, loss, _ = step(*carry, *batch, lr, momentum)
            return (params, velocity), loss

        (params, velocity), losses = jax.lax.scan(one_batch, (params, velocity), (xs, ys))
        return params, velocity, losses

    return jax.jit(epoch)
