# expect: It is only the final state (scan's carry): return the stacked per-step outputs
# Sharp bit: scan returning only the final carry instead of the stacked per-step outputs
import jax.numpy as jnp
from jax import lax


def rnn_states(params, h0, xs):
    """Hidden states h_1..h_T of a tanh RNN, shape (T, H)."""
    def step(h, x):
        h = jnp.tanh(params["W"] @ h + params["U"] @ x + params["b"])
        return h, h

    final, _ = lax.scan(step, h0, xs)
    return final


def rnn_loss(params, h0, xs, ys):
    """Mean squared difference between the RNN's states and the targets ys."""
    return jnp.mean((rnn_states(params, h0, xs) - ys) ** 2)
