# expect: It matches stacking the incoming state h_(t-1): each step should output the new state h_t
# diagnosis: It matches stacking the incoming state h_(t-1): each step should output the new state h_t
# Sharp bit: off-by-one, the step outputs the incoming carry h_{t-1}, so h_0 is stacked and h_T lost
import jax.numpy as jnp
from jax import lax


def rnn_states(params, h0, xs):
    """Hidden states h_1..h_T of a tanh RNN, shape (T, H)."""
    def step(h, x):
        new = jnp.tanh(params["W"] @ h + params["U"] @ x + params["b"])
        return new, h

    _, states = lax.scan(step, h0, xs)
    return states


def rnn_loss(params, h0, xs, ys):
    """Mean squared difference between the RNN's states and the targets ys."""
    return jnp.mean((rnn_states(params, h0, xs) - ys) ** 2)
