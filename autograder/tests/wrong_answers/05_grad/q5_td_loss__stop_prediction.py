# expect: stop_gradient belongs around the target, not around the prediction s @ w
# diagnosis: stop_gradient belongs around the target, not around the prediction s @ w
# Sharp bit: stop_gradient on the prediction instead of the target: only the target moves
import jax
import jax.numpy as jnp


def td_loss(w, s, s_next, r, gamma):
    """Mean squared TD error of a linear value function, with the target not differentiated."""
    target = r + gamma * (s_next @ w)
    return jnp.mean((jax.lax.stop_gradient(s @ w) - target) ** 2)
