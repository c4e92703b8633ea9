"""jax_threefry.py — harness adapter for the threefry golden family, computed by jax itself.

What it is for: recompute every threefry test (jax.random.bits(key, shape, uint32) with
jax_threefry_partitionable=True) with the installed jax, so the golden bits written by
shardcheck's lib/rng/threefry.c are checked against an implementation shardcheck did not write.
The key is rebuilt from its key_data words with jax.random.wrap_key_data (impl threefry2x32).

How it is tested: `python tools/harness/run.py --family threefry` (0 mismatches is the bar).
"""

import hashlib

import numpy as np

import jax
import jax.numpy as jnp

jax.config.update("jax_threefry_partitionable", True)

FAMILY = "threefry"


def _bits(group, test):
    words = [int(w, 16) for w in group["key"]]
    key = jax.random.wrap_key_data(jnp.array(words, dtype=jnp.uint32), impl="threefry2x32")
    shape = tuple(int(d) for d in test["shape"])
    return np.asarray(jax.random.bits(key, shape, jnp.uint32)).reshape(-1)


def compute(group, test):
    flat = _bits(group, test)
    n = flat.size
    if n <= 64:
        return {"bits": ["%08x" % int(v) for v in flat]}
    idx = [0, 1, n // 3, n // 2, n - 2, n - 1]
    return {
        "sha256": hashlib.sha256(flat.astype("<u4").tobytes()).hexdigest(),
        "samples": {"index": [str(i) for i in idx], "bits": ["%08x" % int(flat[i]) for i in idx]},
    }
