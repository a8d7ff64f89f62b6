# expect: epoch(params, velocity, xs, ys, 0.1, 0.9)[2]
# diagnosis: none (the question's checks know no mistake that gives this value yet)
# Sharp bit: the wrong loss kept (each batch's loss measured again after its update)
def build_epoch(step):
    """A jitted epoch(params, velocity, xs, ys, lr, momentum) -> (params, velocity, losses)."""

    def epoch(params, velocity, xs, ys, lr, momentum):
        def one_batch(carry, batch):
            params, velocity, _, _ = step(*carry, *batch, lr, momentum)
            _, _, loss, _ = step(params, velocity, *batch, lr, momentum)
            return (params, velocity), loss

        (params, velocity), losses = jax.lax.scan(one_batch, (params, velocity), (xs, ys))
        return params, velocity, losses

    return jax.jit(epoch, donate_argnums=(0, 1))
