"""test_worker_world.py — telling gloo's failed group set-up from torch's answer to a case
(worker_world.group_setup_failed) and the fault that plants one (worker_faults.py, setup).

The C runner runs a case again when a worker says gloo could not set up a group, so the test
that matters is that the message it keys on is the one real gloo gives: a real ProcessGroupGloo
is made on rank 0 against a rank 1 that published its address and was then killed, and the
error torch raises must be recognised.  Errors that are torch's answers (a refused input, a peer
lost inside a collective) must not be.  The runner's side (the restart and the second run, at 2
ranks under mpirun) is conformance/tests/run_torch.sh's.  Skipped (not passed) without torch.
"""

import datetime
import os
import subprocess
import sys
import time

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402

from worker_faults import Fault  # noqa: E402
from worker_world import group_setup_failed  # noqa: E402

RANK1 = """
import datetime, os, sys
import torch.distributed as dist
st = dist.TCPStore("127.0.0.1", int(sys.argv[1]), None, False,
                   timeout=datetime.timedelta(seconds=60))
dist.ProcessGroupGloo(st, 1, 2, datetime.timedelta(seconds=60))
"""


def _real_setup_failure():
    """The exception of a real ProcessGroupGloo whose peer is gone after the rendezvous."""
    store = dist.TCPStore("127.0.0.1", 0, None, True, timeout=datetime.timedelta(seconds=60),
                          wait_for_workers=False)
    keys = store.num_keys()
    peer = subprocess.Popen([sys.executable, "-c", RANK1, str(store.port)])
    try:
        deadline = time.time() + 60
        while store.num_keys() <= keys and time.time() < deadline:
            time.sleep(0.05)
        assert store.num_keys() > keys, "rank 1 never published its address"
    finally:
        peer.kill()
        peer.wait()
    with pytest.raises(Exception) as info:
        dist.ProcessGroupGloo(store, 0, 2, datetime.timedelta(seconds=3))
    return info.value


def test_real_gloo_setup_failure_is_recognised():
    e = _real_setup_failure()
    assert group_setup_failed(e), "gloo's own error was taken for torch's answer: %r" % e


def test_chained_setup_failure_is_recognised():
    try:
        try:
            raise RuntimeError("Gloo connectFullMesh failed with [pair.cc:152] timed out")
        except RuntimeError as inner:
            raise ValueError("DeviceMesh: cannot make dim 0's group") from inner
    except ValueError as outer:
        assert group_setup_failed(outer)


@pytest.mark.parametrize("msg", [
    "Connection closed by peer [127.0.0.1]:4242",  # a peer lost inside a collective
    "redistribute from S(0) to P(sum) not supported yet",
    "Replicate to Partial(product) conversion is not supported.",
])
def test_torch_answers_are_not_setup_failures(msg):
    assert not group_setup_failed(RuntimeError(msg))


def test_setup_fault_once(tmp_path, monkeypatch):
    monkeypatch.setenv("SHARDCHECK_FAULT_ONCE", str(tmp_path / "once"))
    first, second = Fault("setup:1:7", 1), Fault("setup:1:7", 1)
    first.apply(None, 6)  # another case: nothing
    with pytest.raises(RuntimeError) as info:
        first.apply(None, 7)
    assert group_setup_failed(info.value)
    second.apply(None, 7)  # the restarted worker: the fault was spent
    assert Fault("setup:1:7", 0).kind is None  # another rank: never


def test_setup_fault_every_time(monkeypatch):
    monkeypatch.delenv("SHARDCHECK_FAULT_ONCE", raising=False)
    for _ in range(2):
        with pytest.raises(RuntimeError):
            Fault("setup:0:3", 0).apply(None, 3)
