# expect: The gradient is zero: stop_gradient around the whole loss blocks every gradient
# diagnosis: The gradient is zero: stop_gradient around the whole loss blocks every gradient
# Sharp bit: stop_gradient around the whole loss blocks every gradient (all zeros)
import jax
import jax.numpy as jnp


def td_loss(w, s, s_next, r, gamma):
    """Mean squared TD error of a linear value function, with the target not differentiated."""
    target = r + gamma * (s_next @ w)
    return jax.lax.stop_gradient(jnp.mean((s @ w - target) ** 2))
