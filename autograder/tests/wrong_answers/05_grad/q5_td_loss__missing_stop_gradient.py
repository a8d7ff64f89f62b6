# expect: It matches the gradient through the target too: wrap the target
# diagnosis: It matches the gradient through the target too: wrap the target
# Sharp bit: missing stop_gradient, so the gradient also drags the target toward the prediction
import jax.numpy as jnp


def td_loss(w, s, s_next, r, gamma):
    """Mean squared TD error of a linear value function, with the target not differentiated."""
    target = r + gamma * (s_next @ w)
    return jnp.mean((s @ w - target) ** 2)
