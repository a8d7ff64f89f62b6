# expect: the function build_epoch(step) returns is a plain function, not a jitted function: jit it once inside build_epoch
# Sharp bit: jax.jit applied inside the call (a new jitted function, traced and compiled, every epoch)
def build_epoch(step):
    """A jitted epoch(params, velocity, xs, ys, lr, momentum) -> (params, velocity, losses)."""

    def epoch(params, velocity, xs, ys, lr, momentum):
        def one_batch(carry, batch):
            params, velocity, loss, _ = step(*carry, *batch, lr, momentum)
            return (params, velocity), loss

        (params, velocity), losses = jax.lax.scan(one_batch, (params, velocity), (xs, ys))
        return params, velocity, losses

    def run(params, velocity, xs, ys, lr, momentum):
        return jax.jit(epoch, donate_argnums=(0, 1))(params, velocity, xs, ys, lr, momentum)

    return run
