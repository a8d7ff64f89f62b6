# expect: a new batch, learning rate or momentum compiled the epoch again
# Sharp bit: static arguments that change (every new learning rate compiles the epoch again)
def build_epoch(step):
    """A jitted epoch(params, velocity, xs, ys, lr, momentum) -> (params, velocity, losses)."""

    def epoch(params, velocity, xs, ys, lr, momentum):
        def one_batch(carry, batch):
            params, velocity, loss, _ = step(*carry, *batch, lr, momentum)
            return (params, velocity), loss

        (params, velocity), losses = jax.lax.scan(one_batch, (params, velocity), (xs, ys))
        return params, velocity, losses

    return jax.jit(epoch, donate_argnums=(0, 1), static_argnames=("lr", "momentum"))
