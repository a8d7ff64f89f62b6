# expect: sample_population(key(0), 6)['blood'] has the right shape (6,) but wrong values
# diagnosis: none (the keys are swapped for every draw; naming it would need the answer's formulas in the released test cell)
# Sharp bit: the three keys unpacked in another order than the one asked for (same split, other draws)
import jax
import jax.numpy as jnp


def sample_population(key, n):
    k_blood, k_height, k_smoker = jax.random.split(key, 3)
    probs = jnp.array([0.40, 0.10, 0.05, 0.45])
    return {
        "height": 170.0 + 10.0 * jax.random.normal(k_height, (n,)),
        "smoker": jax.random.bernoulli(k_smoker, 0.2, (n,)),
        "blood": jax.random.categorical(k_blood, jnp.log(probs), shape=(n,)).astype(jnp.int32),
    }
