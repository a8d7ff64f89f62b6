# expect: calls back into Python from its compiled program (pure_callback
# Sharp bit: a jitted jax.pure_callback that loops over the batch in NumPy (one equation at any batch size)
import jax
import numpy as np


def _numpy_loop(params, xs):
    p = {k: np.asarray(v) for k, v in params.items()}
    rows = [p["w2"] @ np.tanh(p["w1"] @ x + p["b1"]) + p["b2"] for x in np.asarray(xs)]
    return np.stack(rows).astype(np.float32).reshape(len(xs), 4)


def make_fast_mlp():
    def fast(params, xs):
        shape = jax.ShapeDtypeStruct((xs.shape[0], 4), xs.dtype)
        return jax.pure_callback(_numpy_loop, shape, params, xs)

    return jax.jit(fast)
