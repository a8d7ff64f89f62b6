# expect: in_axes names, for each argument, the axis that holds the points: None for params
# Sharp bit: in_axes=(0, 1, 0) batches the parameters too (the scalar bias has no axis to map)
import jax


def label_probabilities(params, xs_t, ys):
    def one(params, x, y):
        p = jax.nn.sigmoid(x @ params["w"] + params["b"])
        return y * p + (1 - y) * (1 - p)

    return jax.vmap(one, in_axes=(0, 1, 0))(params, xs_t, ys)
