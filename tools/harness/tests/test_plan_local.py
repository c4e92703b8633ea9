"""test_plan_local.py — the local tensor `shardcheck plan` says a rank holds after a
redistribute (issue 34 item 4: shape, strides and contiguity) against torch's own.

For each case and every rank, torch 2.13's redistribute_local_tensor runs on a fake process
group of that rank (tc.device_mesh: the Python local ops are torch's, the collectives return
tensors of the shape and strides c10d's functional ops give) on a contiguous source local
tensor of the rank's shape, and the result's shape, stride() and is_contiguous() must be what
the CLI's last step says ("local" in `plan --json`).  The cases are drawn to reach every kind
of step with uneven sizes: Shard -> Shard and Partial -> Shard leave a narrowed view of a
padded result (not contiguous past the first dim, in 2.13-2.15), the rest dense tensors.
A case the CLI states no "local" for (a step plan_local.c does not model) fails: none is
expected among these.  The ops each step dispatches ("ops") are compared with a
TorchDispatchMode's record of the same run (test_local_ops_as_torch); the cases, the CLI's and
torch's answers are tools/harness/plan_local_check.py's, which release_check.sh also runs with
the newest release's python.
"""

import os

import pytest

from plan_local_check import (EXE, MERGED, OPS_CASES, cases, cli_locals, cli_ops, torch_local,
                              torch_ops)

pytestmark = pytest.mark.skipif(not os.access(EXE, os.X_OK), reason="no built shardcheck")


@pytest.mark.parametrize("mesh,shape,src,dst", cases())
def test_local_tensor_as_torch(mesh, shape, src, dst):
    import logging
    logging.disable(logging.WARNING)  # the CPU all_to_all fallback's warning
    got = cli_locals(mesh, shape, src, dst)
    if got is None:
        pytest.skip("the CLI refuses the plan or says torch raises running it")
    for rank, local in got.items():
        assert local != "not modelled", (rank, "no local tensor stated")
        assert local == torch_local(mesh, shape, src, dst, rank), rank


def test_some_results_are_views():
    """The suite reaches both answers: the four named cases leave views on some rank."""
    views = 0
    for mesh, shape, src, dst in cases()[-4:]:
        got = cli_locals(mesh, shape, src, dst)
        views += any(not v["contiguous"] for v in got.values())
    assert views == 4


@pytest.mark.parametrize("mesh,shape,src,dst", MERGED)
def test_merged_steps_as_torch(mesh, shape, src, dst):
    import logging
    logging.disable(logging.WARNING)
    got = cli_locals(mesh, shape, src, dst, flatten=True)
    assert got, "the CLI plans it"
    for rank, local in got.items():
        assert local != "not modelled", (rank, "no local tensor stated")
        assert local == torch_local(mesh, shape, src, dst, rank, flatten=True), rank


@pytest.mark.parametrize("mesh,shape,src,dst", cases() + OPS_CASES)
def test_local_ops_as_torch(mesh, shape, src, dst):
    import logging
    logging.disable(logging.WARNING)
    got = cli_ops(mesh, shape, src, dst)
    if got is None:
        pytest.skip("the CLI refuses the plan, says torch raises, or states no ops for a step")
    for rank, ops in got.items():
        assert ops == torch_ops(mesh, shape, src, dst, rank), rank
