"""jax_policy_worker.py — JAX's own sharded draws for the jax-partitionable RNG policy.

What it is for: test_jax_policy.py checks the verdicts shardcheck gives the jax-partitionable
policy (rng-policies golden family: replicas-equal, shards-distinct, sharding-invariant)
against what JAX does: with jax_threefry_partitionable, each case's layout becomes a
NamedSharding over a CPU mesh of as many devices, jax.random.bits runs under jit with that
out_sharding, and each device's shard is compared with the unsharded draw at the shard's
indices.  Run as a script (XLA_FLAGS must give enough host devices before jax is imported) with
the cases on stdin: [{"mesh": [2, 2], "placements": "S(0),R", "shape": [8, 8], "seed": "1234"}];
prints one JSON list: per case the verdicts that held, or why the layout has no JAX sharding.

Layouts: Replicate and Shard(d) map onto PartitionSpec (the mesh dims sharding a tensor dim,
in mesh-dim order, as DTensor's default shard order); Partial and _StridedShard have no
NamedSharding and are reported unmappable, as is a shape JAX refuses to shard unevenly.

How it is tested: it is the JAX side of test_jax_policy.py.
"""

import json
import re
import sys

import numpy as np


def _spec(placements, ndim, names):
    from jax.sharding import PartitionSpec
    dims = [[] for _ in range(ndim)]
    for i, p in enumerate(placements.split(",")):
        p = p.strip()
        if p == "R":
            continue
        m = re.fullmatch(r"S\((\d+)\)", p)
        if not m:
            return None
        dims[int(m.group(1))].append(names[i])
    return PartitionSpec(*[tuple(d) if len(d) > 1 else d[0] if d else None for d in dims])


def _case(case):
    import jax
    from jax.sharding import Mesh, NamedSharding
    names = tuple("m%d" % i for i in range(len(case["mesh"])))
    n = int(np.prod(case["mesh"]))
    mesh = Mesh(np.array(jax.devices()[:n]).reshape(case["mesh"]), names)
    spec = _spec(case["placements"], len(case["shape"]), names)
    if spec is None:
        return {"unmappable": "no NamedSharding for %s" % case["placements"]}
    key = jax.random.key(int(case["seed"]) & 0xffffffff)
    shape = tuple(case["shape"])
    full = np.asarray(jax.random.bits(key, shape, np.uint32))
    try:
        out = jax.jit(lambda k: jax.random.bits(k, shape, np.uint32),
                      out_shardings=NamedSharding(mesh, spec))(key)
    except Exception as e:  # JAX's own refusal (an uneven shard)
        return {"unmappable": "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:160])}
    shards = [(s.device.id, s.index, np.asarray(s.data)) for s in out.addressable_shards]
    invariant = all(np.array_equal(d, full[i]) for _, i, d in shards)
    by_index = {}
    for _, i, d in shards:
        by_index.setdefault(repr(i), []).append(d)
    replicas = all(all(np.array_equal(g[0], x) for x in g) for g in by_index.values())
    # distinct draws: the shard regions partition the array (each element in exactly one),
    # and each region holds the unsharded draw there (invariant): no draw is held twice
    cover, seen = np.zeros(shape, dtype=np.int64), set()
    for _, i, _ in shards:
        if repr(i) not in seen:
            seen.add(repr(i))
            cover[i] += 1
    distinct = bool((cover == 1).all()) and invariant
    holds = [v for v, ok in (("replicas-equal", replicas), ("shards-distinct", distinct),
                             ("sharding-invariant", invariant)) if ok]
    return {"holds": holds, "devices": len(shards), "regions": len(by_index)}


def main():
    import jax
    jax.config.update("jax_threefry_partitionable", True)
    cases = json.load(sys.stdin)
    if len(jax.devices()) < max(int(np.prod(c["mesh"])) for c in cases):
        raise SystemExit("need XLA_FLAGS=--xla_force_host_platform_device_count=N")
    print(json.dumps([_case(c) for c in cases]))


if __name__ == "__main__":
    main()
