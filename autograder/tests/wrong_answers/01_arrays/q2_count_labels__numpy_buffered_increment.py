# expect: It counts each label at most once: with repeated indices
# diagnosis: It counts each label at most once: with repeated indices
# Sharp bit: NumPy-style `counts[labels] += 1` counts a repeated index once (and is not jittable)
import jax.numpy as jnp
import numpy as np


def count_labels(labels, num_classes):
    labels = np.asarray(labels)
    counts = np.zeros(num_classes, dtype=np.int32)
    counts[labels[labels < num_classes]] += 1
    return jnp.asarray(counts)
