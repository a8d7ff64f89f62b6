# expect: changed the trees it was given: build a new one
# Sharp bit: in-place edit of the gradient dicts (the caller's grads change under it)
def add_weight_decay(grads, params, weight_decay):
    """grads, with weight_decay * param added to every leaf whose path ends in the key "w"."""

    def visit(g, p):
        if isinstance(g, dict):
            for key in g:
                if key == "w":
                    g[key] = g[key] + weight_decay * p[key]
                else:
                    visit(g[key], p[key])
        elif isinstance(g, list):
            for g_item, p_item in zip(g, p, strict=True):
                visit(g_item, p_item)

    visit(grads, params)
    return grads
