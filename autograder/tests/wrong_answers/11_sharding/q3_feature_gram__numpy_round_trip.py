# expect: was called on a traced value
# Sharp bit: NumPy sidesteps the sharding eagerly but cannot run on the tracers of jax.jit
def feature_gram(x):
    a = np.asarray(x)
    return jnp.asarray(a.T @ a / a.shape[0])
