# expect: in_axes names, for each argument, the axis that holds the points: None for params
# The chapter's in_axes=(None, 0, 0) transcribed: xs_t's rows are features, not points
import jax


def label_probabilities(params, xs_t, ys):
    def one(params, x, y):
        p = jax.nn.sigmoid(x @ params["w"] + params["b"])
        return y * p + (1 - y) * (1 - p)

    return jax.vmap(one, in_axes=(None, 0, 0))(params, xs_t, ys)
