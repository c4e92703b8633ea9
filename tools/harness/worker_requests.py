"""worker_requests.py — the torch worker's requests from its stdin, and a look at those sent ahead.

What it is for: the C runner sends a chunk of cases ahead (tools/run/run_torch.c), so while a
worker answers one case the next ones are often already in its pipe.  `next()` gives the next
request (blocking), `ahead()` the requests already sent after it, without waiting for more:
plan_share.py plans the cases this rank owns among them while the ranks wait on a case's owner.
Reads fd 0 itself (not sys.stdin's buffer, which would hide what it has read ahead); a request
is one JSON line, parsed once.

How it is tested: through the worker (conformance/tests/run_torch.sh, the main job's torch
stages) and tools/harness/tests/test_plan_share.py (a pipe with requests part-written).
"""

import json
import os
import select
from collections import deque


class Requests:
    def __init__(self, fd=0):
        self.fd, self.buf, self.lines, self.eof = fd, b"", deque(), False

    def _fill(self, block):
        """Read what the pipe holds (blocking for it when block); False at its end or when a
        non-blocking look finds nothing."""
        if self.eof or (not block and not select.select([self.fd], [], [], 0)[0]):
            return False
        data = os.read(self.fd, 1 << 16)
        if not data:
            self.eof = True
            return False
        *whole, self.buf = (self.buf + data).split(b"\n")
        self.lines.extend([None, x] for x in whole if x.strip())
        return True

    @staticmethod
    def _parsed(item):
        if item[0] is None:
            item[0] = json.loads(item[1])
        return item[0]

    def next(self):
        """The next request (a dict), or None when the runner closed the pipe."""
        while not self.lines:
            if not self._fill(True) and self.eof:
                return None
        return self._parsed(self.lines.popleft())

    def ahead(self):
        """The requests already sent after the current one, in order (not consumed)."""
        while self._fill(False):
            pass
        out = []
        for x in self.lines:
            try:
                out.append(self._parsed(x))
            except ValueError:  # next() raises it when its turn comes
                break
        return out

    def drain(self):
        """Read to the pipe's end (a worker that stops answering)."""
        while self._fill(True):
            pass
