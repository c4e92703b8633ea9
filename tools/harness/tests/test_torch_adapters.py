"""test_torch_adapters.py — the torch adapters on cases whose answers are known.

The expected values here come from torch's own documentation (the docstring
tables of compute_local_shape_and_global_offset and _StridedShard in torch
2.13) and from the issue's `layout --mesh 4x2 --placements 'S(0),S(0)' --shape
13,2` example worked by hand with the torch.chunk rule, so the adapters are
checked without any golden file.  Skipped (not passed) when torch is missing.
"""

import pytest

torch = pytest.importorskip("torch")

from adapters import _torch_common as tc  # noqa: E402
from adapters import torch_group_ranks as tg  # noqa: E402
from adapters import torch_shard_layout as ts  # noqa: E402


def layout(mesh, placements, shape, rank_map=None):
    group = {"mesh": mesh}
    if rank_map is not None:
        group["rankMap"] = rank_map
    return ts.compute(group, {"placements": placements, "shape": shape})["perRank"]


def test_docstring_example_of_compute_local_shape_and_global_offset():
    per = layout([2, 2], "S(1),S(1)", [2, 5])
    assert per["localShape"] == [[2, 2], [2, 1], [2, 1], [2, 1]]
    assert per["globalOffset"] == [[0, 0], [0, 2], [0, 3], [0, 4]]


def test_issue_example_uneven_and_empty_shard():
    per = layout([4, 2], "S(0),S(0)", [13, 2])
    # ceil(13/4)=4 rows per mesh-dim-0 chunk: 4,4,4,1; each split in two by ceil
    assert [s[0] for s in per["localShape"]] == [2, 2, 2, 2, 2, 2, 1, 0]
    # the empty shard's offset is the global dim size (torch's zero_global_offset)
    assert [o[0] for o in per["globalOffset"]] == [0, 2, 4, 6, 8, 10, 12, 13]


def test_strided_shard_docstring_table():
    # _StridedShard docstring: [_S(0, sf=2), S(0)] on (dp=2, tp=2), 8 rows:
    # ranks 0..3 hold row blocks 0, 2, 1, 3 (2 rows each)
    per = layout([2, 2], "_S(0, 2),S(0)", [8])
    assert per["indices"] == [[[0, 1]], [[4, 5]], [[2, 3]], [[6, 7]]]
    assert per["globalOffset"] == [[0], [4], [2], [6]]
    # and it equals the shard order that runs mesh dim 1 first
    same = layout([2, 2], "S(0)[1]S(0)[0]", [8])
    assert same["globalOffset"] == per["globalOffset"]


def test_rank_map_moves_coordinates_not_shards():
    per = layout([2, 2], "S(0),R", [5], rank_map=[3, 1, 2, 0])
    # ranks 3 and 1 sit on mesh row 0 (rows 0..2), ranks 2 and 0 on row 1
    assert per["globalOffset"] == [[3], [0], [3], [0]]


@pytest.mark.parametrize("placements,shape,mesh", [
    ("S(2),R", [4, 4], [2, 2]),          # shard dim beyond the tensor (torch asserts)
    ("S(0)", [8], [2, 2]),               # placements shorter than the mesh
    ("S(0)", [-1], [2]),                 # negative size (torch.empty refuses)
    ("S(0)", [2 ** 63 - 1, 2], [2]),     # element count overflows int64
    ("_S(0, 0)", [8], [2]),              # split factor 0 (torch asserts num_chunks > 0)
    ("S(0)[0]S(0)[0]", [8], [2, 2]),     # order torch cannot print
    ("_S(0, 2)[0]S(0)[1]", [8], [2, 2]),  # shard order with _StridedShard
    ("Q(0)", [8], [2]),
])
def test_invalid_inputs_raise(placements, shape, mesh):
    with pytest.raises(Exception):
        layout(mesh, placements, shape)


def test_partial_mean_is_accepted_by_torch():
    """torch's Partial takes any reduce-op string and lays it out as any Partial (shardcheck
    too since issue 34; the golden's tc 31731 rejects only a string past shardcheck's 31
    characters, flag StricterThanTorch), so the adapter must answer, as torch does, and never
    refuse it itself."""
    per = layout([2], "P(mean)", [8])
    assert per["localShape"] == [[8], [8]] and per["globalOffset"] == [[0], [0]]


def test_placement_strings_round_trip_through_torch():
    pl, order = tc.parse_placements("P(sum)S(1)[1]S(1)[0]R")
    assert [str(p) for p in pl] == ["P(sum)", "S(1)", "S(1)", "R"]
    assert order == [None, 1, 0, None]
    pl, order = tc.parse_placements("_S(0, 2),R,P(bxor)")
    assert [str(p) for p in pl] == ["_S(0, 2)", "R", "P(bxor)"] and order is None
    for bad in ["S(0", "X", "S(0),", "", "S(a)"]:
        with pytest.raises(ValueError):
            tc.parse_placements(bad)


def test_group_ranks_on_fake_process_group():
    # mesh [[3, 1], [2, 0]]: dim-0 groups are its columns
    group = {"mesh": [2, 2], "rankMap": [3, 1, 2, 0]}
    out = tg.compute(group, {"op": "device_mesh", "axes": [0]})
    assert out["groups"] == [[3, 2], [1, 0]]
    per = out["perRank"]
    assert per["group"] == [1, 1, 0, 0]          # rank 0 is in column 1, ...
    assert per["localRank"] == [1, 0, 1, 0]      # its mesh coordinate in the column
    assert per["groupRank"] == [0, 1, 0, 1]      # c10d sorts: [0, 1] and [2, 3]
    flat = tg.compute(group, {"op": "device_mesh", "axes": [0, 1]})
    assert flat["groups"] == [[3, 1, 2, 0]]
    assert flat["perRank"]["localRank"] == [3, 1, 2, 0]
    assert flat["perRank"]["groupRank"] == [0, 1, 2, 3]


def test_group_ranks_prepare_fills_only_what_is_announced():
    group = {"mesh": [2, 2, 2], "rankMap": [7, 6, 5, 4, 3, 2, 1, 0]}
    tests = [{"op": "device_mesh", "axes": [1]}, {"op": "rank_lists", "axes": [2, 0, 2]},
             {"op": "hsdp", "placements": "R,S(0),R", "shardDim": 1}]
    tg._views.clear()
    cold = [tg.compute(group, t) for t in tests]  # no hint: every set of the mesh at once
    assert len(tg.view([2, 2, 2], group["rankMap"]).axes) == 7
    tg._views.clear()
    tg.prepare(group, tests)
    assert [tg.compute(group, t) for t in tests] == cold
    # (1,), (0, 2) and hsdp's (1,) and (0, 2): one pass, two sets
    assert sorted(tg.view([2, 2, 2], group["rankMap"]).axes) == [(0, 2), (1,)]
    # a malformed or refused set is never batched with the others: its error stays its own
    tg._views.clear()
    tg.prepare(group, [{"op": "device_mesh", "axes": [1, 0]}, {"op": "device_mesh", "axes": [0]}])
    assert tg.compute(group, {"op": "device_mesh", "axes": [0]})["groups"] == \
        [[7, 3], [6, 2], [5, 1], [4, 0]]
    with pytest.raises(Exception):
        tg.compute(group, {"op": "device_mesh", "axes": [1, 0]})


def test_seed_rank_lists_conventions():
    group = {"mesh": [2, 2], "rankMap": [3, 1, 2, 0]}
    empty = tg.compute(group, {"op": "rank_lists", "axes": []})
    assert empty["split"] == [[3, 1, 2, 0]]
    assert empty["perRank"]["rankList"] == [[0], [1], [2], [3]]
    rows = tg.compute(group, {"op": "rank_lists", "axes": [1, 1]})  # sorted(set(axes))
    assert rows["split"] == [[3, 1], [2, 0]]
    assert rows["perRank"]["rankList"] == [1, 0, 1, 0]  # index of the equal split list


def test_hsdp_groups():
    out = tg.compute({"mesh": [2, 2]}, {"op": "hsdp", "placements": "R,R", "shardDim": 1})
    per = out["perRank"]
    assert per["sharded"] == [[0, 1], [0, 1], [2, 3], [2, 3]]
    assert per["unsharded"] == [[0, 2], [1, 3], [0, 2], [1, 3]]
    assert per["rankSize"] == [4, 4, 4, 4]
    none = tg.compute({"mesh": [2]}, {"op": "hsdp", "placements": "S(0)", "shardDim": -1})
    assert none["perRank"]["sharded"] == ["invalid"] * 2
    assert none["perRank"]["rankSize"] == [1, 1]


@pytest.mark.parametrize("mesh,rank_map,axes", [
    ([2, 2], [0, 1, 1, 3], [0]),     # duplicate rank: DeviceMesh asserts
    ([2, 2], [0, 1, 2, 4], [0]),     # rank out of range: new_group refuses
    ([2, 0], None, [0]),             # empty world: init_process_group refuses
    ([2, 2], None, [1, 0]),          # dims not ascending: mesh slicing refuses
    ([2, 2], None, [0, 0]),          # repeated dim
])
def test_group_ranks_invalid(mesh, rank_map, axes):
    group = {"mesh": mesh}
    if rank_map is not None:
        group["rankMap"] = rank_map
    with pytest.raises(Exception):
        tg.compute(group, {"op": "device_mesh", "axes": axes})


def test_quirk_shard_order_vs_its_strided_shard_encoding():
    """torch 2.13 encodes a shard order as _StridedShard placements
    (DTensorSpec._convert_shard_order_to_StridedShard); for uneven sizes that
    encoding's layout is not the layout of applying the shards in order.
    Mesh 3x2, S(0)[1]S(0)[0], 13 rows: in order, mesh dim 1 splits 7|6, then
    mesh dim 0 splits 7 as 3,3,1 and 6 as 2,2,2."""
    seq = layout([3, 2], "S(0)[1]S(0)[0]", [13])
    assert [s[0] for s in seq["localShape"]] == [3, 2, 3, 2, 1, 2]
    pl, order = tc.parse_placements("S(0)[1]S(0)[0]")
    enc = tc.strided_equivalent(pl, order, [3, 2])
    assert [str(p) for p in enc] == ["_S(0, 2)", "S(0)"]
    strided = layout([3, 2], ",".join(str(p) for p in enc), [13])
    assert [s[0] for s in strided["localShape"]] != [s[0] for s in seq["localShape"]]


def test_quirk_get_local_rank_is_the_communicator_rank():
    """torch 2.13 DeviceMesh.get_local_rank(dim) is get_rank(get_group(dim)):
    the rank in the sorted communicator, not the mesh coordinate."""
    m = tc.device_mesh([2, 2], [3, 1, 2, 0], 0)  # rank 0 sits at [1][1]
    assert m.get_coordinate() == (1, 1)
    assert m.get_local_rank(0) == 0 and m.get_local_rank(1) == 0
    tc.WORLD.close()


def test_hsdp_sharded_group_is_in_communicator_order():
    """Seed 002's sharded group is mesh_info.shard_process_group, which torch's
    FSDPMeshInfo (fsdp/_fully_shard/_fsdp_common.py) builds as
    mesh.get_group(shard_mesh_dim); a rank's shard index is that group's
    rank(), i.e. its index in the c10d-sorted member list, not its mesh
    coordinate.  The adapter reports the sorted list for that reason."""
    from torch.distributed.fsdp._fully_shard._fsdp_common import FSDPMeshInfo
    rank_map = [3, 1, 2, 0]
    out = tg.compute({"mesh": [4], "rankMap": rank_map},
                     {"op": "hsdp", "placements": "R", "shardDim": 0})
    for r in range(4):
        m = tc.device_mesh([4], rank_map, r)
        info = FSDPMeshInfo(mesh=m, shard_mesh_dim=0)
        assert dist_ranks(info.shard_process_group) == out["perRank"]["sharded"][r]
        assert out["perRank"]["sharded"][r].index(r) == info.shard_mesh_rank
        assert m.get_coordinate()[0] == rank_map.index(r)  # differs for r = 0, 3
    tc.WORLD.close()


def dist_ranks(pg):
    import torch.distributed as dist
    return dist.get_process_group_ranks(pg)


def _golden(family, name):
    """golden/FAMILY/NAME of this checkout, as JSON; a missing file fails the test."""
    import json
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "..", "golden", family, name)
    if not os.path.exists(path):
        pytest.fail("golden/%s/%s is missing" % (family, name))
    with open(path) as f:
        return json.load(f)


def _golden_ops():
    return _golden("rng-offsets", "ops.json")


def test_op_table_matches_torch_dispatcher():
    """Every case of the op dimension (lib/offsets/rng_ops.c x placement kinds) against
    torch 2.13's own dispatcher on a fake process group: tracked / untracked
    from whether _distribute_region ran, and rejections with torch's exact
    message (run.py only demands that invalid cases raise)."""
    import harnesslib as hl
    from adapters import torch_rng_offsets as tro
    doc = _golden_ops()
    seen = {"tracked": 0, "untracked": 0, "invalid": 0}
    for g in doc["testGroups"]:
        group = {k: v for k, v in g.items() if k != "tests"}
        for t in g["tests"]:
            inputs = {k: v for k, v in t.items() if k not in hl.HIDDEN_FIELDS}
            if t["result"] == "invalid":
                with pytest.raises(RuntimeError) as ei:
                    tro.compute(group, inputs)
                # torch's own exception: the golden quotes its first paragraph
                assert str(ei.value).split("\n\n")[0] == t["expected"]["error"], t["tcId"]
                seen["invalid"] += 1
                continue
            got = hl.normalize(tro.compute(group, inputs))
            assert not hl.diff_expected("rng-offsets", t["tcId"], t["expected"], got, False), \
                (t["tcId"], t["op"], t["placements"], got)
            seen[t["expected"].get("dispatch", "tracked")] += 1
    assert min(seen.values()) > 10, seen


def test_untracked_op_shards_draw_the_same():
    """Issue 14's H100 observation, on torch's dispatcher: exponential_,
    log_normal_, geometric_, cauchy_ are untracked; uniform_ is tracked."""
    from adapters import torch_rng_offsets as tro
    from torch.distributed.tensor import Shard
    for op, want in [("exponential_", "untracked"), ("log_normal_", "untracked"),
                     ("geometric_", "untracked"), ("cauchy_", "untracked"),
                     ("uniform_", "tracked"), ("native_dropout", "tracked")]:
        assert tro.op_dispatch(op, [4], [0, 1, 2, 3], [Shard(0)], [8, 16], [2, 16]) == want, op


_DT = {"float32": "float32", "float64": "float64", "float16": "float16", "bfloat16": "bfloat16",
       "int64": "int64", "int32": "int32", "int16": "int16", "int8": "int8", "uint8": "uint8",
       "bool": "bool"}


def _cpu_sample_call(test):
    """torch_cuda_rng.sample_call on a CPU (the adapter module needs CUDA to import)."""
    p = test["params"]
    dt = getattr(torch, _DT[test["dtype"]])
    shape = [int(d) for d in test["shape"]]
    if test["op"] == "bernoulli_tensor":
        pt = torch.tensor(p["p_values"], dtype=getattr(torch, _DT[p["p_dtype"]])).reshape(
            [int(d) for d in p["p_shape"]])
        if test["api"] == "bernoulli":
            return torch.bernoulli(pt.expand(shape))
        return torch.empty(shape, dtype=dt).bernoulli_(pt)
    if test["op"] == "multinomial":
        w = torch.tensor(p["weights"], dtype=dt).reshape(shape)
        return torch.multinomial(w, int(p["n_sample"]), bool(p["replacement"]))
    return torch.randperm(int(p["n"]), dtype=dt)


def _cpu_call(test):
    """The API a torch-cuda-rng case names ("api"), on a CPU tensor."""
    if test["op"] in ("bernoulli_tensor", "multinomial", "randperm"):
        return _cpu_sample_call(test)
    p = test["params"]
    x = torch.empty([int(d) for d in test["shape"]], dtype=getattr(torch, _DT[test["dtype"]]))
    api = test["api"]
    calls = {
        "uniform_": lambda: x.uniform_(p.get("from", 0.0), p.get("to", 1.0)),
        "normal_": lambda: x.normal_(p.get("mean", 0.0), p.get("std", 1.0)),
        "exponential_": lambda: x.exponential_(p.get("lambd", 1.0)),
        "bernoulli_.float": lambda: x.bernoulli_(p.get("p", 0.5)),
        "random_.from": lambda: x.random_(int(p["from"]), int(p["to"])),
        "dropout": lambda: torch.nn.functional.dropout(x, p["p"], training=True),
        "log_normal_": lambda: x.log_normal_(p.get("mean", 1.0), p.get("std", 2.0)),
        "geometric_": lambda: x.geometric_(p["p"]),
        "cauchy_": lambda: x.cauchy_(p.get("median", 0.0), p.get("sigma", 1.0)),
    }
    return calls[api]()


def test_torch_cuda_rng_rejections_match_torch_on_cpu():
    """Rejected torch-cuda-rng cases whose check is device-independent
    (DistributionTemplates.h *_impl_, torch.nn.functional.dropout) raise torch's
    exact message on a CPU too; kernel-dispatch names (*_cuda) and our offset
    precondition are not CPU-checkable and are left out."""
    doc = _golden("torch-cuda-rng", "torch_cuda_rng.json")
    checked = 0
    for g in doc["testGroups"]:
        for t in g["tests"]:
            if t["result"] != "invalid":
                continue
            msg = t["expected"]["error"]
            if "_cuda" in msg or "fused_dropout" in msg or "offset" in msg or \
                    "CudaHostCheck" in t["flags"]:
                continue
            with pytest.raises((RuntimeError, ValueError)) as ei:
                _cpu_call(t)
            assert str(ei.value).split("\n")[0] == msg, (t["tcId"], t["api"])
            checked += 1
    assert checked >= 22, checked


def test_torch_cuda_rng_sampling_inputs_accepted_on_cpu():
    """Every valid sampling case (bernoulli with a tensor p, multinomial, randperm) is an
    input torch accepts, with the output shape and dtype the golden's bits assume; the
    golden's multinomial samples name categories of nonzero weight, and small randperm
    outputs are permutations.  (The bits themselves need a GPU: NoGpuOracle.)"""
    doc = _golden("torch-cuda-rng", "torch_cuda_rng.json")
    checked = 0
    for g in doc["testGroups"]:
        for t in g["tests"]:
            if t["result"] != "valid" or t["op"] not in ("bernoulli_tensor", "multinomial",
                                                          "randperm"):
                continue
            out = _cpu_sample_call(t)
            p, shape = t["params"], [int(d) for d in t["shape"]]
            if t["op"] == "bernoulli_tensor":
                want_shape, want_dt = shape, t["dtype"]
            elif t["op"] == "multinomial":
                want_shape = shape[:-1] + [int(p["n_sample"])]
                want_dt = "int64"
            else:
                want_shape, want_dt = [int(p["n"])], t["dtype"]
            assert list(out.shape) == want_shape, t["tcId"]
            assert out.dtype == getattr(torch, want_dt), t["tcId"]
            ex = t["expected"]
            bits = ex["bits"] if "bits" in ex else ex["samples"]["bits"]
            if t["op"] == "multinomial":
                cats = shape[-1]
                idx = [int(i) for i in ex["samples"]["index"]] if "samples" in ex \
                    else list(range(len(bits)))
                for i, b in zip(idx, bits):
                    row = i // int(p["n_sample"])
                    assert p["weights"][row * cats + int(b, 16)] > 0, (t["tcId"], i)
            elif t["op"] == "randperm" and "bits" in ex:
                if t["dtype"] in ("int64", "int32", "int16", "uint8"):
                    vals = [int(b, 16) for b in bits]  # bits: the element's value in hex
                    assert sorted(vals) == list(range(int(p["n"]))), t["tcId"]
            checked += 1
    assert checked >= 27, checked
