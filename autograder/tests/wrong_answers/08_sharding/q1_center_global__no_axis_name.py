# expect: Hint: A collective (psum, pmean, ...) names an axis that no enclosing pmap/shard_map/vmap declared: pass `axis_name=` to `jax.pmap`
# Sharp bit: forgot axis_name: pmean names an axis that the pmap never declared
def center_global(x, scale):
    def per_device(block, s):
        global_mean = jax.lax.pmean(block.mean(axis=0), "devices")
        return s * (block - global_mean)

    return jax.pmap(per_device, in_axes=(0, None))(x, scale)
