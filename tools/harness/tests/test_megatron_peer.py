"""test_megatron_peer.py — the Megatron-core 0.19.2 peer adapters: they run Megatron's own code,
agree with the golden corpus, and fail when a golden seed or group is changed.

The expected numbers here are read off Megatron's source by hand, not computed by it or by
shardcheck: random.py's model_parallel_cuda_manual_seed (tp seed = seed + 2718 + tp_rank, the
default generator seed, expert seed = seed + 1024 + 100 * ep_rank + etp_rank, and
CudaRNGStatesTracker.add's "seed ... already exists"), and parallel_state.py's
generate_masked_orthogonal_rank_groups docstring example (8 GPUs, order tp-pp-dp, sizes 2-2-2:
dp groups [[0, 4], [1, 5], [2, 6], [3, 7]]).  Skipped (never passed) where the peer is not
installed (tools/harness/setup_venv.sh installs it; the test command's harness stage fails
without it).
"""

import copy
import json
import os

import pytest

pytest.importorskip("torch")

from adapters import _megatron_common as mc  # noqa: E402
import harnesslib as hl  # noqa: E402

try:
    mc.load()
except ImportError as e:  # pragma: no cover - depends on the venv
    pytest.skip("Megatron-core peer not installed: %s" % e, allow_module_level=True)

from adapters import megatron_group_ranks as mgr  # noqa: E402
from adapters import megatron_rng_policies as mrp  # noqa: E402

GOLDEN = hl.DEFAULT_GOLDEN


def test_the_peer_is_megatrons_own_source():
    ps, rnd = mc.load()
    root = mc.install_dir()
    assert ps.__file__.startswith(root) and rnd.__file__.startswith(root)
    assert mc.installed_version(root) == "0.19.2"


def test_seeds_read_off_random_py():
    got = mc.seeds(1234, tp_rank=1, ep_rank=2, etp_rank=1)
    assert got["default"] == 1234                        # data_parallel_seed = seed
    assert got["model-parallel-rng"] == 1234 + 2718 + 1  # offset + tp_rank
    assert got["expert-parallel-rng"] == 1234 + 1024 + 200 + 1
    assert "gtp-remat-rng" not in got                    # no GTP-remat group: not added


def test_megatrons_duplicate_seed_refusal_is_raised():
    # tp seed seed+2718 equals the expert seed seed+1024+100*16+94: Megatron's tracker refuses
    with pytest.raises(Exception, match="seed 3952 already exists"):
        mc.seeds(1234, tp_rank=0, ep_rank=16, etp_rank=94)


def test_rank_generator_docstring_example():
    g = mc.rank_generator(tp=2, pp=2, dp=2, order="tp-pp-dp")
    assert g.get_ranks("dp") == [[0, 4], [1, 5], [2, 6], [3, 7]]


def test_megatron_ep_ranks_on_a_2x2x2_mesh():
    # etp = the last mesh dim, ep the one before it (Megatron's expert generator, tp-cp-ep-dp-pp)
    assert [r[:3] for r in mrp.megatron_ranks("megatron-ep", [2, 2, 2])] == [
        (0, 0, 0), (1, 0, 1), (0, 1, 0), (1, 1, 1), (0, 0, 0), (1, 0, 1), (0, 1, 0), (1, 1, 1)]
    # a 1-d mesh is all ep, etp 1
    assert [r[:3] for r in mrp.megatron_ranks("megatron-ep", [4])] == [
        (0, r, 0) for r in range(4)]


def test_training_seeds_read_off_initialize_py():
    # Megatron-LM training/initialize.py: seed + 100 * pp rank (+ 10 * dp rank with
    # --data-parallel-random-init); mesh dim 0 is pp.  2x2 (pp, tp), rank 3 = pp 1, tp 1:
    # model-parallel seed 1234 + 100 + 2718 + 1
    got = mrp.compute({"mesh": [2, 2], "policy": "megatron-train-tp", "seed": "1234"}, {})
    assert got["perRank"]["seed"] == [1234 + 2718, 1234 + 2719, 1334 + 2718, 1334 + 2719]
    # 2x4 (pp, dp): rank 6 = pp 1, dp 2 -> 1234 + 100 + 20
    got = mrp.compute({"mesh": [2, 4], "policy": "megatron-train-dp-random", "seed": "1234"}, {})
    assert got["perRank"]["seed"][6] == 1354 and got["perRank"]["seed"][3] == 1264


def test_gtp_remat_seeds_read_off_random_py():
    # random.py: gtp-remat-rng = seed + 2718 + tp_rank + 65536 * (1 + gtp_rank), added only when
    # the GTP axis is larger than 1; parallel_state.py puts gtp_remat right after tp (decoder)
    # or after ep (expert).  2x2x2 (dp, gtp, tp): rank 3 = tp 1, gtp 1; rank 4 = dp 1.
    got = mrp.compute({"mesh": [2, 2, 2], "policy": "megatron-gtp", "seed": "1000"}, {})
    assert got["perRank"]["seed"][3] == 1000 + 2718 + 1 + 65536 * 2
    assert got["perRank"]["seed"][4] == 1000 + 2718 + 65536
    # egtp-remat-rng = expert seed + 32768 + 65536 * (1 + egtp_rank); 2x2x2 (egtp, ep, etp)
    got = mrp.compute({"mesh": [2, 2, 2], "policy": "megatron-egtp", "seed": "1000"}, {})
    assert got["perRank"]["seed"][6] == 1000 + 1024 + 100 + 32768 + 65536 * 2
    # a GTP axis of one device: Megatron adds no state, and its own fork refuses it
    with pytest.raises(Exception, match="cuda rng state gtp-remat-rng is not added"):
        mrp.compute({"mesh": [1, 2], "policy": "megatron-gtp", "seed": "1000"}, {})


def test_etp_apart_from_tp_megatron_refuses_a_duplicate_seed():
    # decoder tp 8, etp 2, ep 18, pp 2: rank 70 has tp rank 6, ep rank 17, etp rank 0 ->
    # 1234 + 2718 + 6 == 1234 + 1024 + 1700 + 0 == 3958, which Megatron's tracker refuses
    group = {"mesh": [2, 2, 18, 2], "policy": "megatron-train-ep", "seed": "1234", "tp": 8}
    with pytest.raises(Exception, match="seed 3958 already exists"):
        mrp.compute(group, {})
    group = dict(group, mesh=[2, 2, 2, 2], tp=4)   # etp 2 != tp 4, no duplicate: it runs
    seeds = mrp.compute(group, {})["perRank"]["seed"]
    assert seeds[:4] == [1234 + 1024, 1234 + 1025, 1234 + 1124, 1234 + 1125]


@pytest.mark.parametrize("group,test,why", [
    ({"mesh": [4], "rankMap": [3, 2, 1, 0]}, {"op": "device_mesh", "axes": [0]}, "rank map"),
    ({"mesh": [2, 2]}, {"op": "rank_lists", "axes": [0]}, "seed 002"),
    ({"mesh": [2, 2]}, {"op": "device_mesh", "axes": [1, 0]}, "set of its parallel dims"),
    ({"mesh": [2, 2, 2, 2, 2]}, {"op": "device_mesh", "axes": [0]}, "4 parallel dims"),
])
def test_what_megatron_cannot_express_is_not_supported(group, test, why):
    with pytest.raises(NotImplementedError, match=why):
        mgr.compute(group, test)


def run(adapter, family, files=None, tcids=None):
    return hl.run_family(family, adapter, GOLDEN, files=files, tcids=tcids)


def test_every_megatron_seed_agrees():
    res = run(mrp, "rng-policies")
    assert res.failed == 0, [str(m) for m in res.mismatches[:5]]
    # every megatron-* case is checked: the skips are the other policies only
    assert res.passed == sum(1 for _ in megatron_cases()) > 0
    assert all("not Megatron's" in why for why in res.skip_reasons)
    # the golden flag says exactly which cases this peer checks
    flagged = sum(1 for doc in family_docs("rng-policies") for g in doc["testGroups"]
                  for t in g["tests"] if "CheckedByMegatron" in t["flags"])
    assert flagged == res.passed
    assert all("CheckedByMegatron" in t["flags"] for _, _, t in megatron_cases())


def family_docs(family):
    return [hl.load_file(p) for p in hl.family_files(GOLDEN, family)]


def megatron_cases():
    """Every megatron-* group of the family: each policy's own file and the NPU file's."""
    for path in hl.family_files(GOLDEN, "rng-policies"):
        for g in hl.load_file(path)["testGroups"]:
            if g["policy"].startswith("megatron-"):
                for t in g["tests"]:
                    yield g["policy"], g, t


def test_every_arange_device_mesh_group_agrees():
    res = run(mgr, "group-ranks")
    assert res.failed == 0, [str(m) for m in res.mismatches[:5]]
    assert res.passed >= 4000


def mutated(tmp_path, family, name, change):
    doc = hl.load_file(os.path.join(GOLDEN, family, name))
    doc = copy.deepcopy(doc)
    tcid = change(doc)
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path), tcid


def test_a_mutated_seed_fails(tmp_path):
    def bump(doc):   # rank 1's expert seed of the first 2-d case, off by one
        for g in doc["testGroups"]:
            if len(g["mesh"]) == 2:
                t = g["tests"][0]
                seeds = t["expected"]["perRank"]["seed"]
                seeds[1] = str(int(seeds[1]) + 1)
                return t["tcId"]
    path, tcid = mutated(tmp_path, "rng-policies", "megatron-ep.json", bump)
    res = run(mrp, "rng-policies", files=[path], tcids={tcid})
    assert (res.passed, res.failed) == (0, 1)
    m = res.mismatches[0]
    assert (m.tcid, m.field, m.rank) == (tcid, "seed", 1)


def test_a_mutated_group_fails(tmp_path):
    def swap(doc):   # two ranks of a 2x4 mesh's dim-1 groups exchanged
        for g in doc["testGroups"]:
            if g["mesh"] == [2, 4] and "rankMap" not in g:
                for t in g["tests"]:
                    if t["op"] == "device_mesh" and t["axes"] == [1]:
                        gs = t["expected"]["groups"]
                        gs[0][0], gs[1][0] = gs[1][0], gs[0][0]
                        return t["tcId"]
    path, tcid = mutated(tmp_path, "group-ranks", "all-meshes.json", swap)
    res = run(mgr, "group-ranks", files=[path], tcids={tcid})
    assert (res.passed, res.failed) == (0, 1)
    assert res.mismatches[0].tcid == tcid and res.mismatches[0].field == "groups"
