"""test_jax_policy.py — the jax-partitionable RNG policy's verdicts against JAX's own sharded
draws (issue 33 item 3: every policy checked by its own code where it exists).

The rng-policies golden family (written by lib/offsets/rng_policy*.c) says which SPMD
properties hold for each layout under the jax-partitionable policy.  jax_policy_worker.py runs
each layout in JAX itself (jax_threefry_partitionable, jit with a NamedSharding over as many
CPU devices) and derives the same properties from the real shards.  For every layout JAX can
shard (Replicate and Shard; not Partial, _StridedShard or an uneven dim, which JAX refuses),
the golden verdicts other than torch-equal (not a JAX notion) must be JAX's; the layouts JAX
cannot shard are counted, and the mappable ones must not shrink below what they are today.
The cases JAX shards are exactly those the corpus flags CheckedByJax.
JAX's values are sharding-invariant by design (with or without the partitionable threefry:
jit computes the global array's values whatever the sharding), so what this checks is
shardcheck's verdicts, not JAX: a corpus whose verdict is mutated fails it
(SHARDCHECK_GOLDEN=DIR points it at another corpus).
"""

import json
import math
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
GOLDEN = os.path.join(os.environ.get("SHARDCHECK_GOLDEN") or os.path.join(REPO, "golden"),
                      "rng-policies", "jax-partitionable.json")

pytest.importorskip("jax")


def _cases():
    with open(GOLDEN) as f:
        doc = json.load(f)
    for g in doc["testGroups"]:
        for t in g["tests"]:
            yield {"tcId": t["tcId"], "mesh": g["mesh"], "placements": t["placements"],
                   "shape": t["shape"], "seed": g["seed"], "holds": t["expected"]["holds"],
                   "checked": "CheckedByJax" in t["flags"]}


@pytest.fixture(scope="module")
def jax_answers():
    cases = list(_cases())
    n = max(math.prod(c["mesh"]) for c in cases)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=%d" % n,
               JAX_PLATFORMS="cpu")
    p = subprocess.run([sys.executable, os.path.join(HERE, "jax_policy_worker.py")],
                       input=json.dumps(cases), capture_output=True, text=True, timeout=300,
                       env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    return cases, json.loads(p.stdout)


def test_verdicts(jax_answers):
    cases, answers = jax_answers
    mapped = 0
    for c, a in zip(cases, answers):
        # the golden flag CheckedByJax says which cases this test checks: exactly the ones
        # JAX shards (rng_policies.c jax_can_shard)
        assert c["checked"] == ("unmappable" not in a), (c, a)
        if "unmappable" in a:
            continue
        mapped += 1
        want = sorted(h for h in c["holds"] if h != "torch-equal")
        assert sorted(a["holds"]) == want, (c, a)
    assert mapped >= 10, "JAX shards %d of the %d layouts (10 before)" % (mapped, len(cases))
