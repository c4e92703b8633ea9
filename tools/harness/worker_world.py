"""worker_world.py — what a torch worker's ranks share across cases: the meshes, the ranks' own
control channel, settling a case that raised, telling a failed group set-up from a result, and
the one gloo device every group of the worker shares (share_gloo_device).

What it is for: torch_worker.py keeps one World per worker process.  Its meshes are real
DeviceMeshes whose gloo groups are costly to make (a rendezvous of every rank), so a few are
cached; after a case that runs collectives the ranks settle on the control channel (settle), so
nothing a case left half done reaches the next one.  A group whose set-up failed in gloo's own
transport (group_setup_failed) says nothing about torch's semantics: the worker answers it as
transient, and the C runner (tools/run/run_torch.c) restarts every worker and runs the case once
more.  Tested by conformance/tests/run_torch.sh (the faults of worker_faults.py, at 2 ranks),
tools/harness/tests/test_worker_world.py (group_setup_failed against a real gloo failure) and
test_plan_share.py (a World on a fake process group).
"""

import os
import re

DRAIN_S = 20  # World._drain: a barrier on a healthy group ends in milliseconds, even on loaded cores
# World.mesh keeps at most this many meshes: each mesh's gloo groups (and the flattened ones a
# group-ranks case makes) keep threads and sockets of their own, thousands per worker at np 8.
# Measured there on 2 cores before the groups shared one gloo device (share_gloo_device),
# group-ranks' 2,000-case sample (the main job's): 2 meshes, 46 s (3,900 threads in all at
# most); 4, 58 s (7,200); 8, 429 s and 16, 349 s, each with a case over its 60 s (11,000
# threads, load average 1,600-2,400); no bound, the main job's tc 18846 over its 60 s.  The
# cases come grouped by mesh, so few meshes are made twice.  Every rank sees the same cases, so
# every rank drops at the same case; making the groups again costs one rendezvous per mesh.
# SHARDCHECK_TORCH_MESH_CACHE sets it (run_torch.sh: 1).
MESH_CACHE = int(os.environ.get("SHARDCHECK_TORCH_MESH_CACHE") or 2)


# Which gloo device a process group the worker makes gets (share_gloo_device): "shared" (one
# for every group of the worker) or "per-group" (torch's own default: a device, and its
# thread, per group).  SHARDCHECK_TORCH_GLOO_DEVICE sets it; the bench's before-run uses
# per-group.
GLOO_DEVICE = os.environ.get("SHARDCHECK_TORCH_GLOO_DEVICE", "shared")
GLOO_DEVICES = ("shared", "per-group")


def gloo_device_problem():
    """None, or what is wrong with SHARDCHECK_TORCH_GLOO_DEVICE (torch_worker.start: exit 2)."""
    if GLOO_DEVICE in GLOO_DEVICES:
        return None
    return ("SHARDCHECK_TORCH_GLOO_DEVICE=%r: expected shared (one gloo device for every group "
            "the worker makes, the default) or per-group (torch's own)" % GLOO_DEVICE)


def _gloo_devices(gloo):
    """The devices torch's own constructor gives a group: one per interface GLOO_SOCKET_IFNAME
    lists (run_torch.c sets lo for a job on 127.0.0.1), else the default one."""
    names = os.environ.get("GLOO_SOCKET_IFNAME", "")
    if len(names) > 1:  # torch's test (ProcessGroupGloo's constructor, init.cpp)
        return [gloo.create_device(interface=n) for n in names.split(",")]
    return [gloo.create_default_device()]


def share_gloo_device(c10d):
    """Every gloo group made after this call gets the same gloo devices; None, or why not.

    Why: torch makes each gloo group through ProcessGroupGloo(store, rank, size, timeout=...)
    (torch 2.13's _new_process_group_helper; 2.15's _create_gloo_process_group adds
    enable_reconfigure=), which gives the group devices of its own, and each gloo TCP device
    runs a thread that wakes every 10 ms (gloo's tcp Loop::run) for as long as it lives.  The
    groups a worker's meshes make outlive destroy_process_group (World.drop_meshes; what holds
    them was not pinned down): at np 8 a rank's worker held 107 such threads after 120
    redistribute-plan cases and 125 after 400, and the eight workers' wake-ups took a third of
    both cores (perf: the gloo_tcp_loop threads), more with every mesh made.  One device
    serves any number of groups (its pairs are told apart by the groups' own rendezvous);
    torch takes it through ProcessGroupGloo's other constructor, the one with options
    (_Options._devices), given here what torch's own would have: the interfaces of
    GLOO_SOCKET_IFNAME, two threads per device, the timeout, enable_reconfigure.  A call of
    another form goes to torch's constructor untouched.  What a case computes is not touched:
    the groups, their ranks and their collectives are torch's; only the devices under them are
    one set.  Measured at np 8 on 2 cores (bench_torch_backend.sh, 400 cases a family, before:
    SHARDCHECK_TORCH_GLOO_DEVICE=per-group): redistribute-plan 9.2 -> 13.4 cases/s,
    group-ranks 23.1 -> 39.2, shard-layout 57.1 -> 65.9; the main job's torch at np 8 with
    redistribute-plan whole took 955 s."""
    if GLOO_DEVICE != "shared":
        return None
    gloo = getattr(c10d, "ProcessGroupGloo", None)
    options = getattr(gloo, "_Options", None)
    if gloo is None or options is None or not hasattr(options(), "_devices") or \
            not hasattr(gloo, "create_default_device") or not hasattr(gloo, "create_device"):
        return "this torch's ProcessGroupGloo takes no shared device: each group keeps its own"
    devices = _gloo_devices(gloo)

    class TorchClass(type(gloo)):
        """isinstance(x, ProcessGroupGloo) stays torch's test (a backend torch hands back is of
        its own class, and the world group's was made before this call)."""

        def __instancecheck__(cls, obj):
            return isinstance(obj, gloo)

    class SharedDeviceGloo(gloo, metaclass=TorchClass):
        """torch's ProcessGroupGloo on the worker's devices (share_gloo_device)."""

        def __init__(self, store, rank, size, *args, **kw):
            o = options()
            if args or set(kw) - {"timeout", "enable_reconfigure"} or \
                    (kw.get("enable_reconfigure") and not hasattr(o, "enable_reconfigure")):
                super().__init__(store, rank, size, *args, **kw)  # a form not ours: torch's
                return
            if "timeout" in kw:
                o._timeout = kw["timeout"]
            if kw.get("enable_reconfigure"):
                o.enable_reconfigure = True
            o._devices = devices
            o._threads = 2 * len(devices)
            super().__init__(store, rank, size, o)

    c10d.ProcessGroupGloo = SharedDeviceGloo
    return None


class World:
    def __init__(self, torch, dist, device):
        self.torch, self.dist, self.device = torch, dist, device
        self.rank, self.size = dist.get_rank(), dist.get_world_size()
        self.meshes = {}
        # the ranks' own channel for settle(), never used by a case, so nothing a case leaves
        # half done can reach it; made by start() for a real job (a World on torch's fake
        # process group, as invalid_audit.py makes one, has none and never settles)
        self.ctrl = None
        self.upcoming = lambda: []  # serve(): the requests sent ahead of the current one
        self.plans = {}  # plan_share.py: tcId -> the graph searches planned ahead for it

    def settle(self, raised):
        """After a case that runs collectives: did any rank raise?  True when the workers must
        be started again (the answer says so: the C runner restarts every rank's worker).

        A case that raised on some rank may have left collectives in flight: torch's
        functional collectives return before the data arrives, so a rank can raise (a
        torch._check on the result's size) while its all-gather still waits, or a peer can
        still be sending.  Read later, that data aborts the process from gloo's thread
        ("Received data size doesn't match expected size") in whatever case runs then: the main
        job at np 4, redistribute-plan tc 16057 (a waived finding) then tc 16058 died with
        SIGABRT, and under load the abort came after every rank had raised.  So when any rank
        raised, the ranks drain every group of their meshes (_drain): the work in flight ends
        now, in this case (an abort here is this case's Crash); a group whose ranks disagree on
        how many collectives it ran, or whose barrier does not end, cannot be trusted again:
        every worker is replaced."""
        if self.ctrl is None:
            return False
        flag = self.torch.tensor([1 if raised else 0], dtype=self.torch.int)
        self.dist.all_reduce(flag, op=self.dist.ReduceOp.MAX, group=self.ctrl)
        if not flag.item():
            return False
        flag[0] = 0 if self._drain() else 1
        self.dist.all_reduce(flag, op=self.dist.ReduceOp.MAX, group=self.ctrl)
        if not flag.item():
            return False
        self.drop_meshes()
        return True

    def _groups(self):
        """{(mesh key, dim, member ranks): group} for every dim group this rank is in."""
        out = {}
        for key, m in self.meshes.items():
            try:
                groups = m.get_all_groups()
            except Exception:  # noqa: BLE001 — a mesh torch only half built has none
                continue
            for d, g in enumerate(groups):
                out[(repr(key), d, tuple(self.dist.get_process_group_ranks(g)))] = g
        return out

    def _drain(self):
        """Every group's collectives so far, ended: True when each group's ranks agree on how
        many it ran and a barrier on it (gloo's barrier waits for the work queued before it)
        ends within DRAIN_S; the groups go in one global order, so no two ranks wait on each
        other crosswise."""
        groups = self._groups()
        mine = {k: g._get_sequence_number_for_group() for k, g in groups.items()}
        every = [None] * self.size
        self.dist.all_gather_object(every, mine, group=self.ctrl)
        agreed = True
        for k in set().union(*every):
            seqs = {every[r].get(k) for r in k[2]}
            agreed &= len(seqs) == 1 and None not in seqs
        if not agreed:
            return False
        from datetime import timedelta
        try:
            for k in sorted(groups):
                self.dist.barrier(group=groups[k], async_op=True).wait(
                    timeout=timedelta(seconds=DRAIN_S))
        except Exception:  # noqa: BLE001 — a barrier that fails or times out: not trusted
            return False
        return True

    def drop_meshes(self):
        """Destroy every group the cases made (the meshes' and the flattened ones; the default
        group and the ranks' own channel are kept) and forget the meshes."""
        keep = {self.dist.group.WORLD, self.ctrl}
        made = set(self._groups().values())
        try:  # the flattened meshes' groups too: torch lists every group it made
            made |= set(self.dist.distributed_c10d._world.pg_map)
        except AttributeError:  # a torch without that table: the meshes' own groups
            pass
        for g in made - keep:
            try:
                self.dist.destroy_process_group(g)
            except Exception:  # noqa: BLE001 — already gone: nothing left to read
                pass
        self.meshes.clear()

    def mesh(self, shape, rank_map=None):
        """A real DeviceMesh, cached: creating its groups is a rendezvous of every rank."""
        key = (tuple(shape), tuple(rank_map) if rank_map else None)
        m = self.meshes.get(key)
        if m is None:
            if len(self.meshes) >= MESH_CACHE:
                self.drop_meshes()
            from torch.distributed.device_mesh import DeviceMesh
            n = 1
            for s in shape:
                n *= s
            from adapters import _torch_common as tc
            t = self.torch.tensor(rank_map if rank_map else list(range(n)), dtype=self.torch.int)
            # a rank map of the wrong length is torch's view to refuse
            m = DeviceMesh(self.device, tc.native(t.view, tuple(shape)),
                           mesh_dim_names=tuple("d%d" % i for i in range(len(shape))))
            self.meshes[key] = m
        return m


# gloo's own message when a group's full mesh of TCP pairs cannot be made (ProcessGroupGloo's
# constructor, torch 2.11-2.15: "Gloo connectFullMesh failed with ..."): it comes from creating a
# group (a DeviceMesh's dims, a flattened mesh) and never from what torch computes of a case.
# Once at np 8 on 2 loaded cores (CI at 7aff74d, and a checkpoint run before it) one rank's pair
# was "closed by peer" and the other ranks waited in the rendezvous until the case's limit.
_SETUP_FAILED = re.compile(r"Gloo connectFullMesh failed")


def group_setup_failed(exc):
    """Whether exc, or an exception it was raised from, is gloo failing to set up a group."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if _SETUP_FAILED.search(str(exc)):
            return True
        exc = exc.__cause__ or exc.__context__
    return False
