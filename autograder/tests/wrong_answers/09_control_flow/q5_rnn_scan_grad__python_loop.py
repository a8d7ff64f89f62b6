# expect: rnn_loss traces to more operations for 40 steps than for 5: the loop over time is unrolled. Use lax.scan.
# Sharp bit: a Python for loop over time is unrolled under tracing: the jaxpr grows with T
import jax.numpy as jnp


def rnn_states(params, h0, xs):
    """Hidden states h_1..h_T of a tanh RNN, shape (T, H)."""
    h, states = h0, []
    for x in xs:
        h = jnp.tanh(params["W"] @ h + params["U"] @ x + params["b"])
        states.append(h)
    return jnp.stack(states)


def rnn_loss(params, h0, xs, ys):
    """Mean squared difference between the RNN's states and the targets ys."""
    return jnp.mean((rnn_states(params, h0, xs) - ys) ** 2)
