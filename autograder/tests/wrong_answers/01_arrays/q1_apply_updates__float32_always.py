# expect: has the wrong dtype: expected float16, got float32
# Sharp bit: x cast to float32 "to be safe" first, so a float16 x comes back float32
import jax.numpy as jnp


def apply_updates(x):
    x = jnp.asarray(x, dtype=jnp.float32)
    x = x.at[0].set(-1.0)
    x = x.at[1].add(10.0)
    x = x.at[2:5].mul(3.0)
    x = x.at[-1].max(0.0)
    return x
