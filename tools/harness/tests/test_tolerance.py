"""test_tolerance.py — the harness compares a GpuOnly value as its flag says (issue 15 item 4).

The Python mirror of conformance/corpus/golden_tolerance.c: a GpuOnly case carrying
"tolerance" {dtype, ulp} passes with its samples within the tolerance and its sha256
different (a note, not a failure); one ulp past it fails; every value of every other case
stays exact.  A GPU adapter is stood in for by adapters that answer the golden values with
GPU-like perturbations, over the real golden/torch-cuda-rng and golden/rng-offsets files;
the notes must read as the C runner's do (verify_gpuonly.sh checks the same texts), and
torch_worker.check (the torchrun form) applies the same rule.
"""

import copy
import json
import os
import subprocess

import pytest

from conftest import HARNESS, python_cmd
import harnesslib as hl

GOLDEN = hl.DEFAULT_GOLDEN
RNG = os.path.join(GOLDEN, "torch-cuda-rng", "torch_cuda_rng.json")


def golden_tests(path=RNG):
    with open(path) as f:
        doc = json.load(f)
    return {t["tcId"]: t for g in doc["testGroups"] for t in g["tests"]}


def bump(word, n):
    return "%0*x" % (len(word), int(word, 16) + n)


def answer(test, index=None, n=0, digest=True):
    """The golden answer of test, sample `index` moved by n bits and the sha256 changed."""
    got = copy.deepcopy(test["expected"])
    if index is not None:
        got["samples"]["bits"][index] = bump(got["samples"]["bits"][index], n)
    if digest:
        got["sha256"] = "0" * 64
    return got


def diff(test, got):
    notes = []
    mism = hl.diff_expected("torch-cuda-rng", test["tcId"], test["expected"], got,
                            tolerance=hl.tolerance_of(test), notes=notes)
    return mism, notes


def test_tolerance_read_from_the_golden_case():
    t = golden_tests()
    assert hl.tolerance_of(t[17]) == {"dtype": "float32", "ulp": 390}
    assert hl.tolerance_of(t[34]) == {"dtype": "float32", "ulp": 39}
    assert hl.tolerance_of(t[18]) == {"dtype": "float64", "ulp": 2}
    assert hl.tolerance_of(t[19]) == {"dtype": "float16", "ulp": 1}
    assert hl.tolerance_of(t[143]) is None            # log_normal: GpuOnly, no tolerance
    fake = dict(t[17], flags=["NoGpuOracle"])          # not GpuOnly: exact means exact
    assert hl.tolerance_of(fake) is None
    assert hl.tolerance_of(dict(t[17], tolerance={"dtype": "int8", "ulp": 1})) is None
    assert "tolerance" in hl.HIDDEN_FIELDS             # an adapter never sees it


def test_one_ulp_within_passes_with_the_c_note():
    t = golden_tests()[17]                              # samples[2] = c02934c5 = -2.64
    mism, notes = diff(t, answer(t, 2, 1))
    assert mism == []
    assert notes == ["note: sha256 differs (GpuOnly: samples within 390 ulp of float32, "
                     "largest 1)"]


def test_bound_and_one_past_it():
    t = golden_tests()[17]
    assert diff(t, answer(t, 2, 390))[0] == []
    (m,), _ = diff(t, answer(t, 2, 391))
    assert m.field == "samples" and "391 ulp, over the GpuOnly tolerance of 390 ulp" in m.note
    # below 1 the unit is 1.0's ulp: samples[6] = -0.165, 8 bits per unit
    assert diff(t, answer(t, 6, 3120))[0] == []
    assert diff(t, answer(t, 6, 3128))[0] != []


def test_exact_stays_exact():
    tests = golden_tests()
    uni = next(t for t in tests.values() if "samples" in t["expected"]
               and "GpuOnly" not in t["flags"] and t["result"] == "valid")
    assert diff(uni, answer(uni, 2, 1))[0] != []       # a non-GpuOnly sample, 1 bit
    assert diff(uni, answer(uni))[0] != []              # a non-GpuOnly sha256
    ln = tests[143]                                     # GpuOnly without a tolerance
    assert diff(ln, answer(ln, 2, 1))[0] != []
    t = tests[17]
    got = answer(t, 2, 1)
    got["new_offset"] = "8"                             # the exact field of a tolerant case
    (m,), _ = diff(t, got)
    assert m.field == "new_offset"


def test_bad_candidate_samples_fail_with_a_reason():
    t = golden_tests()[17]
    got = answer(t)
    got["samples"]["bits"][3] = "7fc00000"
    assert "not finite" in diff(t, got)[0][0].note
    got = answer(t)
    got["samples"]["bits"].pop()
    assert "expected 8 values, got 7" in diff(t, got)[0][0].note
    got = answer(t)
    got["samples"]["bits"][1] = "3f8"
    assert "expected a float32 word (8 hex digits)" in diff(t, got)[0][0].note
    got = answer(t)
    got["samples"]["index"][4] = "5"
    assert "sample indices differ" in diff(t, got)[0][0].note


def test_per_rank_digest_and_sample():
    path = os.path.join(GOLDEN, "rng-offsets", "random-data.json")
    t = golden_tests(path)[25796]                        # normal bfloat16 on a100, 8 ranks
    got = copy.deepcopy(t["expected"])
    pr = got["perRank"]
    pr["digest"][2] = "0" * 64
    pr["sample"][2][1] = bump(pr["sample"][2][1], 1)
    notes = []
    assert hl.diff_expected("rng-offsets", 25796, t["expected"], got,
                            tolerance=hl.tolerance_of(t), notes=notes) == []
    assert notes and notes[0].startswith("note: digest differs (GpuOnly: samples within 1 ulp")
    pr["sample"][2][1] = bump(pr["sample"][2][1], 600)
    (m,) = hl.diff_expected("rng-offsets", 25796, t["expected"], got,
                            tolerance=hl.tolerance_of(t))
    assert m.rank == 2 and "over the GpuOnly tolerance" in m.note


def test_sm90_sfu_model_is_exact():
    # normal float32 on h100-sxm: the sm_90 SFU model makes it exact (SfuModel), so
    # it has no tolerance and one bit off fails
    path = os.path.join(GOLDEN, "rng-offsets", "random-data.json")
    t = golden_tests(path)[25793]
    assert "SfuModel" in t["flags"] and "tolerance" not in t
    got = copy.deepcopy(t["expected"])
    got["perRank"]["digest"][2] = "0" * 64
    got["perRank"]["sample"][2][1] = bump(got["perRank"]["sample"][2][1], 1)
    assert hl.diff_expected("rng-offsets", 25793, t["expected"], got,
                            tolerance=hl.tolerance_of(t)) != []


GPU_LIKE = '''
import json
FAMILY = "torch-cuda-rng"
_T = {t["tcId"]: t for g in json.load(open(%r))["testGroups"] for t in g["tests"]}
def compute(group, test):
    t = _T[test["tcId"]]
    if t["result"] == "invalid":
        raise ValueError(t["expected"]["error"])
    got = json.loads(json.dumps(t["expected"]))
    if "tolerance" in t:  # what a GPU does: the last bits and the sha256 differ
        b = got["samples"]["bits"]
        b[2] = "%%0*x" %% (len(b[2]), int(b[2], 16) + %d)
        got["sha256"] = "0" * 64
    return got
'''


def gpu_adapter(tmp_path, bits):
    p = tmp_path / ("gpu_like_%d.py" % bits)
    p.write_text(GPU_LIKE % (RNG, bits))
    return str(p)


def test_run_family_gpu_like_adapter_passes_with_notes(tmp_path):
    mod = hl.load_adapter(gpu_adapter(tmp_path, 1))
    res = hl.run_family("torch-cuda-rng", mod, GOLDEN, schema=False)
    tol = [i for i, t in golden_tests().items() if "tolerance" in t]
    # 43, 53, 63 (normal float32 on the sm_90 profiles) are exact since the SFU model
    assert len(tol) == 16 and {17, 18, 19, 34, 35} <= set(tol)
    assert not {43, 53, 63} & set(tol)
    assert res.failed == 0 and [m for m in res.mismatches] == []
    assert sorted(t for t, _ in res.notes) == sorted(tol)


def test_run_family_gpu_like_adapter_past_the_tolerance_fails(tmp_path):
    mod = hl.load_adapter(gpu_adapter(tmp_path, 4096))
    res = hl.run_family("torch-cuda-rng", mod, GOLDEN, schema=False)
    assert res.failed > 0 and res.notes == []
    assert all("over the GpuOnly tolerance" in m.note for m in res.mismatches)


def test_run_py_prints_the_note(tmp_path):
    p = subprocess.run(python_cmd() + [os.path.join(HARNESS, "run.py"), "--no-schema",
                        "--family", "torch-cuda-rng", "--adapter", gpu_adapter(tmp_path, 1),
                        "--tcid", "17", "--tcid", "1"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "NOTE torch-cuda-rng tcId=17: note: sha256 differs (GpuOnly: samples within 390 " \
           "ulp of float32, largest 1)" in p.stdout
    assert p.stdout.rstrip().endswith("2 passed, 0 failed")


def test_torch_worker_check_applies_the_same_rule():
    import torch_worker
    t = golden_tests()[17]
    assert torch_worker.check("torch-cuda-rng", t, 0, {"view": answer(t, 2, 1)}) is None
    why = torch_worker.check("torch-cuda-rng", t, 0, {"view": answer(t, 2, 391)})
    assert why and "over the GpuOnly tolerance of 390 ulp" in why
    uni = next(u for u in golden_tests().values() if "samples" in u["expected"]
               and "GpuOnly" not in u["flags"] and u["result"] == "valid")
    assert torch_worker.check("torch-cuda-rng", uni, 0, {"view": answer(uni, 2, 1)})
