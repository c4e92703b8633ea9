"""test_invalid_audit.py — every invalid golden case is rejected by torch itself or by a flag.

The rule (project guide): an oracle adapter must never add a check torch itself lacks.  Here,
with the torch this python imports:
  - invalid_audit.audit over every invalid case of every torch family finds no rejection by
    an adapter's or the torch worker's own check, no invalid case torch accepts without the
    flag StricterThanTorch, and no flagged case torch rejects;
  - the audit and the harness refuse an adapter, or a worker family, given a check of its own
    (the checks this issue removed, put back one at a time), and a torch that rejects a
    StricterThanTorch case;
  - harnesslib.rejection_origin tells torch's Python, torch's C++ (through
    _torch_common.native) and an adapter's own raise apart;
  - docs/invalid-audit.md's column for this release is what the audit finds now.
Skipped (not passed) without torch.
"""

import os
import re

import pytest

torch = pytest.importorskip("torch")

import harnesslib as hl  # noqa: E402
import invalid_audit as ia  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
GOLDEN = os.path.join(REPO, "golden")
RELEASE = hl.torch_minor(torch.__version__)

_ROWS = {}


def rows(families=None):
    key = tuple(families or ia.FAMILIES)
    if key not in _ROWS:
        _ROWS[key] = ia.audit(GOLDEN, list(key), RELEASE)
    return _ROWS[key]


def test_every_invalid_case_is_rejected_by_torch_or_a_flag():
    got = rows()
    assert len(got) > 100
    assert ia.problems(got) == []
    flagged = {(r["family"], r["tcId"]): r["flags"] for r in got if r["flags"]}
    # tc 31731 (a 32-character reduce op) and 20336 (one placement for a 2-d mesh): torch
    # accepts them
    assert flagged[("shard-layout", 31731)] == [hl.STRICTER]
    assert flagged[("redistribute-plan", 20336)] == [hl.STRICTER]
    for r in got:
        if hl.STRICTER in r["flags"]:
            assert r["adapter"]["by"] == "accepted" and r["worker"]["by"] == "accepted", r


def one(family, tcid):
    for _path, group, test in hl.iter_cases(family, GOLDEN, with_answers=True):
        if test["tcId"] == tcid:
            return group, {k: v for k, v in test.items() if k not in hl.HIDDEN_FIELDS}
    raise AssertionError("no tc %d in %s" % (tcid, family))


def audit_only(family, monkeypatch_fn=None):
    return ia.problems(ia.audit(GOLDEN, [family], RELEASE))


def test_audit_refuses_an_adapter_check_of_its_own(monkeypatch):
    """The adapter's old check of the placement count (before torch's distribute_tensor saw
    it) and its old reduce-op check (tc 31731): each is caught."""
    from adapters import torch_shard_layout as ts
    real = ts.torch_validate

    def own_count(mesh_shape, placements, order, gshape):
        if len(placements) != len(mesh_shape):
            raise ValueError("`placements` must have the same length as `device_mesh.ndim`!")
        return real(mesh_shape, placements, order, gshape)

    monkeypatch.setattr(ts, "torch_validate", own_count)
    got = audit_only("shard-layout")
    assert any("tc 31723: adapter: rejected by its own check at tests/test_invalid_audit.py"
               in p for p in got), got
    from torch.distributed.tensor.placement_types import Partial

    def own_reduce_op(mesh_shape, placements, order, gshape):
        for p in placements:
            if isinstance(p, Partial) and p.reduce_op not in ("sum", "avg", "min", "max"):
                raise ValueError("not a reduce op torch.distributed supports")
        return real(mesh_shape, placements, order, gshape)

    monkeypatch.setattr(ts, "torch_validate", own_reduce_op)
    monkeypatch.setattr(ts, "_layout_cache", {})  # tc 31731's layout was kept: ask again
    got = audit_only("shard-layout")
    assert any("tc 31731: adapter: flag StricterThanTorch says torch accepts it, but it raised"
               in p for p in got), got


def test_audit_refuses_a_worker_check_of_its_own(monkeypatch):
    """The torch backend's code is held to the same rule: its old check of the placement count
    in redistribute-plan (tc 20337, which torch itself rejects) is caught."""
    import torch_worker as tw
    real = tw.FAMILIES["redistribute-plan"]

    def own(w, group, test):
        if len(test["dst"].split(",")) != len(group["mesh"]):
            raise AssertionError("dimensions mismatch")
        return real(w, group, test)

    monkeypatch.setitem(tw.FAMILIES, "redistribute-plan", own)
    group, test = one("redistribute-plan", 20337)
    o = ia.worker_outcome("redistribute-plan", group, test)
    assert o["by"] == "adapter" and "test_invalid_audit.py" in o["where"], o


def test_audit_refuses_an_invalid_case_torch_accepts(monkeypatch):
    """A family whose torch accepts an invalid case with no flag saying so (here: an adapter
    that swallows torch's rejection) fails the audit."""
    from adapters import torch_group_ranks as tg
    real = tg.compute

    def swallow(group, test):
        try:
            return real(group, test)
        except Exception:  # noqa: BLE001
            return {}

    monkeypatch.setattr(tg, "compute", swallow)
    got = audit_only("group-ranks")
    assert any("tc 21101: adapter: accepted an invalid case without the flag" in p
               for p in got), got


def test_harness_fails_an_oracle_adapter_check_and_counts_rejections(monkeypatch):
    """run_family: a torch adapter's own rejection fails the case; otherwise the family's
    rejections are counted by torch and by flag."""
    from adapters import torch_shard_layout as ts
    files = [os.path.join(GOLDEN, "shard-layout", "invalid.json")]
    res = hl.run_family("shard-layout", ts, GOLDEN, files=files)
    assert res.failed == 0, [str(m) for m in res.mismatches]
    assert res.rejections == {"torch": 12, "flag " + hl.STRICTER: 1,
                              "flag " + hl.NOT_TORCH_INPUT: 3}, res.rejections
    real = ts.torch_validate

    def own(mesh_shape, placements, order, gshape):
        if len(placements) != len(mesh_shape):
            raise ValueError("placements: wrong count")
        return real(mesh_shape, placements, order, gshape)

    monkeypatch.setattr(ts, "torch_validate", own)
    res = hl.run_family("shard-layout", ts, GOLDEN, files=files)
    assert res.failed == 2, [str(m) for m in res.mismatches]
    assert all("rejected by the adapter's own check" in str(m) for m in res.mismatches)


def test_harness_fails_a_stricter_case_torch_rejects(monkeypatch):
    """A StricterThanTorch case the torch adapter rejects fails: the flag's note claims torch
    accepts it, and the harness holds the note to that."""
    from adapters import torch_redistribute_plan as rp
    files = [os.path.join(GOLDEN, "redistribute-plan", "invalid.json")]
    res = hl.run_family("redistribute-plan", rp, GOLDEN, files=files)
    assert res.failed == 0 and res.rejections.get("flag " + hl.STRICTER) == 1, res.rejections
    real = rp._setup

    def strict():
        S = real()
        S["local_shape"] = lambda shape, mesh, p, _f=S["local_shape"]: (
            _f(shape, mesh, p) if len(p) == mesh.ndim else
            torch.distributed.tensor.distribute_tensor(torch.empty(1, device="meta"), mesh, p))
        return S

    monkeypatch.setattr(rp, "_setup", strict)
    res = hl.run_family("redistribute-plan", rp, GOLDEN, files=files)
    bad = [str(m) for m in res.mismatches]
    assert res.failed == 1 and "tcId=20336" in bad[0] and \
        "flag StricterThanTorch says torch accepts this input, but torch raised at" in bad[0], bad


def test_rejection_origin():
    from adapters import _torch_common as tc

    def catch(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            return hl.rejection_origin(e)
        raise AssertionError("did not raise")

    by, where = catch(lambda: tc.native(torch.empty, (-1,), device="meta"))
    assert by == "torch" and where.startswith("native torch.empty (tests/test_invalid_audit.py:")
    from torch.distributed.tensor.placement_types import _StridedShard
    by, where = catch(lambda: _StridedShard(0, split_factor=0)._split_tensor(
        torch.empty(4), 2, with_padding=False))
    assert by == "torch" and re.match(r"torch/distributed/tensor/\w+\.py:\d+$", where), where
    by, where = catch(lambda: tc.parse_placements("Q(0)"))
    assert (by, where.split(":")[0]) == ("adapter", "adapters/_torch_common.py")
    # torch's C++ called directly, not through native(): the adapter's line, not torch's
    by, where = catch(lambda: torch.empty((-1,), device="meta"))
    assert by == "adapter", where


def doc_cells(path, release):
    """{(family, tcId): cell} of docs/invalid-audit.md's column for `release`."""
    with open(path) as fh:
        text = fh.read()
    head = next(ln for ln in text.splitlines() if ln.startswith("| # | family"))
    cols = [c.strip() for c in head.strip("|").split("|")]
    col = cols.index("torch %s" % hl.patches()[release])
    cells = {}
    for ln in text.splitlines():
        m = re.match(r"\| (\d+) \|", ln)
        if m:
            cells[int(m.group(1))] = [c.strip() for c in ln.strip().strip("|").split("|")]
    out = {}
    for ln in text.splitlines():
        m = re.match(r"(\d+)\. ([\w-]+): (.*)$", ln)
        if not m:
            continue
        row = cells[int(m.group(1))]
        for part in m.group(3).split(", "):
            a, _, b = part.partition("-")
            for tc in range(int(a), int(b or a) + 1):
                out[(m.group(2), tc)] = row[col]
    return out


def test_the_document_is_this_release_s_audit():
    path = os.path.join(REPO, "docs", "invalid-audit.md")
    if RELEASE not in hl.patches() or hl.patches()[RELEASE] != torch.__version__.split("+")[0]:
        pytest.skip("torch %s is not a release the document covers" % torch.__version__)
    want = {(r["family"], r["tcId"]): ia.cell(r["adapter"], r["flags"]) for r in rows()}
    have = {k: v for k, v in doc_cells(path, RELEASE).items() if v != "valid"}
    assert have == want


def test_run_py_reports_rejections_by_torch_and_by_flag(capsys):
    """run.py's report of a family names who rejected its invalid cases (in process: the
    same report_text the command prints, without a second torch import)."""
    import run
    from adapters import torch_shard_layout as ts
    files = [os.path.join(GOLDEN, "shard-layout", "invalid.json")]
    res = hl.run_family("shard-layout", ts, GOLDEN, files=files)
    run.report_text(res, ts, 10)
    out = capsys.readouterr().out
    assert "#   invalid cases rejected: 12 by torch, 1 by flag StricterThanTorch (torch accepts " \
           "it: checked), 3 by flag NotTorchInput (no torch object to reject)" in out, out
