"""worker_faults.py — faults planted inside a real torch worker (SHARDCHECK_FAULT), so the C
runner's handling of a dead, stuck or stranded rank, and of a group set-up that fails, is tested
against real torch processes rather than a stub.  Tested by conformance/tests/run_torch.sh, which
plants each one and asserts the case's status and message and that the run goes on.
"""

import os
import signal
import time


class Fault:
    """SHARDCHECK_FAULT=kill:RANK:TCID | hang:RANK:TCID | strand:RANK:TCID | setup:RANK:TCID,
    applied inside the
    worker so a real torch process dies, or stops answering while its peers wait in a collective,
    or (strand) a case leaves a collective half done: in case TCID rank RANK starts an all-gather
    on the whole world without waiting for it and every rank raises; the other ranks join that
    all-gather, with another size, only when their next case starts (as a rank that went on
    with a plan its peers abandoned would).  Unless the ranks settle the case (World.settle),
    rank RANK's gloo aborts in the next case.  setup: rank RANK raises gloo's own group set-up
    error (worker_world.group_setup_failed) while its peers go on into the case and wait for it;
    with SHARDCHECK_FAULT_ONCE=PATH only the first worker to create PATH raises it, so the case
    run again after the restart passes, as it did after the real failure."""

    def __init__(self, spec, rank):
        self.kind, self.late = None, None
        if spec:
            kind, r, t = spec.split(":")
            if int(r) == rank or kind == "strand":
                self.kind, self.tcid, self.first = kind, int(t), int(r) == rank

    def apply(self, w, tcid):
        if self.late is not None:  # the all-gather a strand left: joined now, another size
            late, self.late = self.late, None
            w.dist.all_gather([w.torch.zeros(2) for _ in range(w.size)], late)
        if not self.kind or tcid != self.tcid:
            return
        if self.kind == "strand":
            if self.first:
                self.work = w.dist.all_gather([w.torch.zeros(1) for _ in range(w.size)],
                                              w.torch.ones(1), async_op=True)
            else:
                self.late = w.torch.ones(2)
            raise RuntimeError("SHARDCHECK_FAULT strand: a collective left half done")
        if self.kind == "setup":
            if self._first_time():
                raise RuntimeError("Gloo connectFullMesh failed with [SHARDCHECK_FAULT setup] "
                                   "Connection closed by peer")
            return
        if self.kind == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        while True:
            time.sleep(3600)


    @staticmethod
    def _first_time():
        once = os.environ.get("SHARDCHECK_FAULT_ONCE")
        if not once:
            return True
        try:
            os.close(os.open(once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True
