# expect: It is the probability of label 1 for every point
# diagnosis: It is the probability of label 1 for every point
# The chapter's predict_one batched: the probability of label 1, whatever the point's label
import jax


def label_probabilities(params, xs_t, ys):
    def one(params, x):
        return jax.nn.sigmoid(x @ params["w"] + params["b"])

    return jax.vmap(one, in_axes=(None, 1))(params, xs_t)
