"""test_worker_world.py — telling gloo's failed group set-up from torch's answer to a case
(worker_world.group_setup_failed) and the fault that plants one (worker_faults.py, setup); the
one gloo device the worker's groups share (worker_world.share_gloo_device).

The C runner runs a case again when a worker says gloo could not set up a group, so the test
that matters is that the message it keys on is the one real gloo gives: a real ProcessGroupGloo
is made on rank 0 against a rank 1 that published its address and was then killed, and the
error torch raises must be recognised.  Errors that are torch's answers (a refused input, a peer
lost inside a collective) must not be.  The runner's side (the restart and the second run, at 2
ranks under mpirun) is conformance/tests/run_torch.sh's.  The shared device is counted in two
fresh processes as the worker makes groups: gloo's device threads by name, per-group (torch's
own) against shared, with a sum across the processes checked on each group.  Skipped (not passed)
without torch.
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
import worker_world  # noqa: E402
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


GROUPS = """
import datetime, os, sys, torch, torch.distributed as dist
sys.path.insert(0, sys.argv[1])
import worker_world
rank, world = int(sys.argv[3]), 2
dist.init_process_group("gloo", init_method="file://" + sys.argv[2], rank=rank, world_size=world)
c10d = dist.distributed_c10d
original = c10d.ProcessGroupGloo
why = worker_world.share_gloo_device(c10d)
assert why is None, why
assert issubclass(c10d.ProcessGroupGloo, original)
# torch's isinstance test of a backend it hands back (the world's was made before the patch)
assert isinstance(dist.group.WORLD._get_backend(torch.device("cpu")), c10d.ProcessGroupGloo)

def loops():  # gloo's TCP device threads (its Loop), by the name gloo gives them
    return sum(open("/proc/self/task/%s/comm" % t).read().strip() == "gloo_tcp_loop"
               for t in os.listdir("/proc/self/task"))

def group(k):  # a group of both ranks, checked by a sum across the two processes
    g = dist.new_group(backend="gloo")
    t = torch.tensor([(rank + 1.0) * (k + 1)])
    dist.all_reduce(t, group=g)
    assert t.item() == 3.0 * (k + 1), (k, t)
    assert isinstance(g._get_backend(torch.device("cpu")), c10d.ProcessGroupGloo)
    return g

keep = [group(0)]  # a device's thread starts with its first pair: the shared one's here
before = loops()
keep += [group(k) for k in range(1, 6)]
grown = loops() - before
# a call of another form (the timeout positional) is torch's: a device of its own
store = dist.PrefixStore("positional", c10d._get_default_store())
pg = c10d.ProcessGroupGloo(store, rank, world, datetime.timedelta(seconds=60))
t = torch.tensor([rank + 1.0])
pg.allreduce([t]).wait()
assert t.item() == 3.0, t
if rank == 0:
    print(grown, loops() - before - grown)
dist.barrier()
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="threads counted in /proc")
@pytest.mark.parametrize("mode,grown", [("per-group", 5), ("shared", 0)])
def test_groups_share_one_gloo_device(tmp_path, mode, grown):
    """Two processes make groups after share_gloo_device, each checked by a sum across them:
    past the first, five more device threads under torch's own default, none when shared; a
    call of another form gets a device of its own either way."""
    env = dict(os.environ, SHARDCHECK_TORCH_GLOO_DEVICE=mode, GLOO_SOCKET_IFNAME="lo")
    env.pop("TORCH_GLOO_LAZY_INIT", None)  # lazy pairs would start no thread of their own
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ranks = [subprocess.Popen([sys.executable, "-c", GROUPS, here, str(tmp_path / "rdv"),
                               str(r)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for r in (0, 1)]
    outs = [p.communicate(timeout=180) for p in ranks]
    for p, (out, err) in zip(ranks, outs):
        assert p.returncode == 0, err[-2000:]
    assert outs[0][0].split() == [str(grown), "1"], outs[0][0]


def test_gloo_device_setting_refused(monkeypatch):
    monkeypatch.setattr(worker_world, "GLOO_DEVICE", "one")
    assert "SHARDCHECK_TORCH_GLOO_DEVICE='one'" in worker_world.gloo_device_problem()
    monkeypatch.setattr(worker_world, "GLOO_DEVICE", "per-group")
    assert worker_world.gloo_device_problem() is None
