"""test_torch_policy_peer.py — the torch peer of rng-policies: torch's own OffsetBasedRNGTracker
agrees with the golden corpus on exactly the cases flagged CheckedByTorch, a changed window
fails, and the oracle flags say which values no outside code checks.

The expected numbers here are read off torch 2.13's _random.py by hand, not computed by it or
by shardcheck: _compute_rng_offsets's start = (shard_linear_idx * first_shard_numel + 3) // 4
* 4 and end = (global numel + 3) // 4 * 4, and _calc_shard_linear_idx (the shard index over
the sharded mesh dims, the last fastest).
"""

import copy
import json
import os

import pytest

pytest.importorskip("torch")

import harnesslib as hl  # noqa: E402
from adapters import torch_rng_policies as trp  # noqa: E402

GOLDEN = hl.DEFAULT_GOLDEN
TORCH_OFFSET = os.path.join(GOLDEN, "rng-policies", "torch-offset.json")
PEERS = ("CheckedByMegatron", "CheckedByVescale", "CheckedByTorch", "CheckedByJax")


def group(mesh, **kw):
    return dict({"mesh": mesh, "policy": "torch-offset", "gpu": "a100", "seed": "1234"}, **kw)


@pytest.mark.parametrize("grp,test,start,post,lin", [
    # S(0) of 16x16 over 4 ranks: 64 elements a shard, shard r starts at 64 r, 256 in all
    (group([4]), {"placements": "S(0)", "shape": [16, 16]},
     ["0", "64", "128", "192"], ["256"] * 4, [0, 1, 2, 3]),
    # a rank map [3, 1, 2, 0]: global rank 0 holds shard 3 (its coordinate is 3)
    (group([4], rankMap=[3, 1, 2, 0]), {"placements": "S(0)", "shape": [16, 16]},
     ["192", "64", "128", "0"], ["256"] * 4, [3, 1, 2, 0]),
    # R,S(1) of 2x2 over a 5x6 tensor: a shard of 5x3 = 15 elements, start 15 rounded up to 16,
    # 30 rounded to 32 for the end; the replicated dim does not count in the index
    (group([2, 2]), {"placements": "R,S(1)", "shape": [5, 6]},
     ["0", "16", "0", "16"], ["32"] * 4, [0, 1, 0, 1]),
])
def test_windows_read_off_torch(grp, test, start, post, lin):
    got = trp.compute(grp, test)["perRank"]
    assert got == {"start_offset": start, "post_offset": post, "shard_linear_index": lin}


def test_other_policies_are_not_torchs():
    with pytest.raises(NotImplementedError, match="not torch's OffsetBasedRNGTracker"):
        trp.compute(group([2], policy="hyper-parallel"), {"placements": "R", "shape": [4]})


def run(files=None, tcids=None):
    return hl.run_family("rng-policies", trp, GOLDEN, files=files, tcids=tcids)


def all_cases():
    return [(os.path.basename(p), g, t) for p in hl.family_files(GOLDEN, "rng-policies")
            for g in hl.load_file(p)["testGroups"] for t in g["tests"]]


def test_exactly_the_flagged_cases_agree():
    res = run()
    assert res.failed == 0, [str(m) for m in res.mismatches[:5]]
    flagged = [(f, g, t) for f, g, t in all_cases() if "CheckedByTorch" in t["flags"]]
    assert all(g["policy"] == "torch-offset" for _, g, _ in flagged)
    # torch-offset.json, its float64 rows (dtypes.json) and its NPU rows: 15 + 15 + 17
    assert sorted({f for f, _, _ in flagged}) == ["dtypes.json", "npu-ascend-910b.json",
                                                  "torch-offset.json"]
    assert res.passed == len(flagged) == 47
    assert res.skipped == len(all_cases()) - 47


def test_oracle_flags_name_what_no_peer_checks():
    """NoIndependentOracle exactly where no peer flag is; UncheckedVerdicts on every valid case
    JAX's draws do not check; every flag the cases use is a note of their file."""
    n_none = 0
    for f, g, t in all_cases():
        peers = [p for p in PEERS if p in t["flags"]]
        assert ("NoIndependentOracle" in t["flags"]) == (not peers), (f, t["tcId"])
        n_none += not peers
        unchecked = t["result"] == "valid" and "CheckedByJax" not in t["flags"]
        assert ("UncheckedVerdicts" in t["flags"]) == unchecked, (f, t["tcId"])
    for p in hl.family_files(GOLDEN, "rng-policies"):
        doc = hl.load_file(p)
        used = {fl for g in doc["testGroups"] for t in g["tests"] for fl in t["flags"]}
        assert used <= set(doc["notes"]), (p, used - set(doc["notes"]))
    # hyper-parallel (no public package), torch-untracked and torch-func-random (CUDA only),
    # and the layouts veScale and JAX cannot express
    assert n_none == 200


def test_a_changed_window_fails(tmp_path):
    doc = copy.deepcopy(hl.load_file(TORCH_OFFSET))
    t = next(t for g in doc["testGroups"] for t in g["tests"] if t["placements"] == "S(0)")
    start = t["expected"]["perRank"]["start_offset"]
    start[1] = str(int(start[1]) + 4)
    path = tmp_path / "torch-offset.json"
    path.write_text(json.dumps(doc))
    res = run(files=[str(path)], tcids={t["tcId"]})
    assert (res.passed, res.failed) == (0, 1)
    m = res.mismatches[0]
    assert (m.tcid, m.field, m.rank) == (t["tcId"], "start_offset", 1)
