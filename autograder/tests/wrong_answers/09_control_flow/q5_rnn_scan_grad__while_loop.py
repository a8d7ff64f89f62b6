# expect: Hint: Reverse-mode `jax.grad` cannot go through `lax.while_loop`
# Sharp bit: while_loop where grad is needed (reverse-mode differentiation of while_loop fails)
import jax.numpy as jnp
from jax import lax


def rnn_states(params, h0, xs):
    """Hidden states h_1..h_T of a tanh RNN, shape (T, H)."""
    xs = jnp.asarray(xs)
    T = xs.shape[0]

    def body(carry):
        t, h, states = carry
        h = jnp.tanh(params["W"] @ h + params["U"] @ xs[t] + params["b"])
        return t + 1, h, states.at[t].set(h)

    init = (0, h0, jnp.zeros((T, h0.shape[0]), dtype=h0.dtype))
    _, _, states = lax.while_loop(lambda c: c[0] < T, body, init)
    return states


def rnn_loss(params, h0, xs, ys):
    """Mean squared difference between the RNN's states and the targets ys."""
    return jnp.mean((rnn_states(params, h0, xs) - ys) ** 2)
