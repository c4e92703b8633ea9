"""torch_zygote.py — start torch workers by forking one process that imported torch already.

Why: importing torch and DTensor costs about 3.3 CPU-s per process (measured: `import torch,
torch.distributed.tensor` under `python -X importtime` and time.process_time(), torch 2.13 CPU
wheel), and `shardcheck run --backend torch` starts one worker per rank under every mpirun, again
after every case that leaves a collective half done (World.settle).  The test command starts
some fifty such workers per make check, the main job hundreds.  A zygote imports torch once;
each worker is then a fork of it (copy-on-write: milliseconds), running torch_worker.py
unchanged with the rank's own stdin, stdout, stderr, environment and working directory.

  serve:  python torch_zygote.py serve SOCKET      (until SIGTERM; tools/test_job.sh and
          tools/main_job.sh start one and export SHARDCHECK_TORCH_ZYGOTE=SOCKET)
  client: python -S -u torch_zygote.py client SOCKET SCRIPT [ARG...]
          what run_torch.c starts instead of `python -u SCRIPT` when SHARDCHECK_TORCH_ZYGOTE is
          set.  It hands the zygote its three standard streams (SCM_RIGHTS), argv, environment
          and working directory, then waits: it ends as the worker ended (its exit status, or
          killed by the same signal), and when it is killed itself the zygote kills the worker.
          So the C runner's reaping, kills and timeouts see the worker as if it were the child.

Where a fork would not be the process the runner asked for, the client execs the worker
itself (`python -u SCRIPT ...`), exactly what runs without a zygote:
  - no zygote answers at SOCKET;
  - the zygote runs another interpreter (sys.executable differs: a test's SHARDCHECK_PYTHON
    without torch, another release's venv);
  - a variable read when torch's libraries load differs from the zygote's (OpenMP's thread
    count is fixed when libgomp loads, for instance): the names in LOAD_TIME_PREFIXES.
The worker also takes the client's resource limits, CPU affinity, umask and niceness (RLIMITS,
_attributes), which a fork would otherwise take from the zygote.
Known difference: a worker's end reaches the runner through the zygote, a few milliseconds
after it happened.  When one rank's worker dies by a signal (a gloo abort) and makes a peer's
worker exit with an error, which of the two a case's Crash names is a race that the exec path
wins for the first and a loaded machine can turn round here; so the main job, whose waivers of
gloo's recorded aborts match "died with signal", starts its workers without a zygote.
Fork safety: the zygote never initialises CUDA, a process group or torch's thread pools, and
runs one thread (asserted at start), so a child starts as a fresh import would leave it.

Tested by conformance/tests/run_torch.sh (the faults, the version refusal and a python without
torch through a zygote) and tools/harness/tests/test_torch_zygote.py.
"""

import json
import os
import selectors
import socket
import sys

# Environment variables read while torch's shared libraries and Python modules load (OpenMP,
# MKL and Python's own start-up, torch's import-time switches, the loader's paths).
# LD_LIBRARY_PATH is left out: libtool's wrapper of an uninstalled shardcheck sets it to the
# build's lib/.libs (libshardcheck alone), and torch finds its own libraries by RPATH.
LOAD_TIME_PREFIXES = ("OMP_", "GOMP_", "KMP_", "MKL_", "OPENBLAS_", "LD_PRELOAD", "LD_AUDIT",
                      "PYTHON", "TORCH", "CUDA_", "MALLOC_")
MAX_REQUEST = 1 << 20
FORKED = 0  # workers forked by this zygote (said when it stops)
# The environment the zygote started with: importing torch sets variables of its own
# (TORCHINDUCTOR_CACHE_DIR, seen with torch 2.13), which a fresh worker would set alike.
START_ENV = dict(os.environ)


def _load_time_env(env):
    return {k: v for k, v in env.items() if k.startswith(LOAD_TIME_PREFIXES)}


def _exec_worker(argv):
    """The worker as it runs without a zygote (the runner's own command line)."""
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-u"] + argv)


# ---- the client ----------------------------------------------------------------------------

# The process attributes a fork would otherwise take from the zygote, not from the rank's
# process: resource limits (a test's `ulimit -f`), CPU affinity (mpirun --bind-to), umask and
# niceness.  The client sends its own; the worker takes them before the script runs.
RLIMITS = ("RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_AS",
           "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_NPROC")


def _attributes():
    import resource
    mask = os.umask(0o022)
    os.umask(mask)
    return {"rlimits": {n: list(resource.getrlimit(getattr(resource, n))) for n in RLIMITS
                        if hasattr(resource, n)},
            "affinity": sorted(os.sched_getaffinity(0)), "umask": mask, "nice": os.nice(0)}


def _take_attributes(a):
    import resource
    for name, (soft, hard) in a["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    os.sched_setaffinity(0, a["affinity"])
    os.umask(a["umask"])
    if a["nice"] > os.nice(0):
        os.nice(a["nice"] - os.nice(0))


def client(path, argv):
    req = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(),
           "python": os.path.abspath(sys.executable), "attributes": _attributes()}
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        socket.send_fds(s, [json.dumps(req).encode() + b"\n"], [0, 1, 2])
        f = s.makefile("rb")
        first = json.loads(f.readline() or b"{}")
    except (OSError, ValueError):
        first = {}
    if "pid" not in first:  # no zygote, or one that does not run what was asked: run it here
        s.close()
        _exec_worker(argv)
    # The worker holds the streams now.  Keeping copies open here would hide its end from the
    # runner until the zygote reports it (run_torch.sh caught it: a peer's error reached the
    # runner first and was taken for the crash), so they are let go at once.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    end = json.loads(f.readline() or b"{}")  # blocks while the worker runs
    if "signal" in end:
        import signal
        if end["signal"] not in (signal.SIGKILL, signal.SIGSTOP):  # those cannot be caught
            signal.signal(end["signal"], signal.SIG_DFL)
        os.kill(os.getpid(), end["signal"])
    sys.exit(end.get("exit", 70))  # 70: the zygote died before the worker ended


# ---- the zygote ----------------------------------------------------------------------------

def _preload():
    """What every worker imports before its first case (torch_worker.start and warm_up)."""
    import logging  # noqa: F401
    import torch  # noqa: F401
    import torch.distributed  # noqa: F401
    import torch.distributed.tensor  # noqa: F401
    from torch.distributed.tensor import _redistribute  # noqa: F401
    from torch.distributed.tensor.debug import CommDebugMode  # noqa: F401


def _cannot_take(a):
    """Why a forked worker could not take the client's attributes (None: it can): a limit above
    the zygote's hard one or a lower niceness need privileges the zygote may lack."""
    import resource
    if os.geteuid() != 0:
        for name, (_, hard) in (a.get("rlimits") or {}).items():
            own = resource.getrlimit(getattr(resource, name))[1]
            if own != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or hard > own):
                return "%s above the zygote's" % name
        if a.get("nice", 0) < os.nice(0):
            return "a niceness below the zygote's"
    if not set(a.get("affinity") or []) & os.sched_getaffinity(0):
        return "CPUs the zygote may not use"
    return None


def _refusal(req, own_env):
    if req.get("python") != os.path.abspath(sys.executable):
        return "the zygote runs %s, not %s" % (sys.executable, req.get("python"))
    why = _cannot_take(req.get("attributes") or {})
    if why:
        return why
    want, have = _load_time_env(req.get("env") or {}), _load_time_env(own_env)
    if want != have:
        diff = sorted(set(want.items()) ^ set(have.items()))
        return "load-time environment differs: %s" % ", ".join(k for k, _ in diff[:4])
    return None


def _child(req, fds, sockets, pipe):
    """In the forked worker: become the process the client stands for, run the script, exit."""
    import atexit
    import io
    import runpy
    import signal
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL if sig != signal.SIGPIPE else signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for s in sockets:  # the zygote's: its listener and the other workers' clients
            s.close()
        for fd in pipe:
            os.close(fd)
        os.setsid()
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.environ.clear()
        os.environ.update(req["env"])
        os.chdir(req["cwd"])
        _take_attributes(req["attributes"])
        # `python -u`: unbuffered binary streams, text written through
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                      write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                      errors="backslashreplace", write_through=True)
        script = req["argv"][0]
        sys.argv = list(req["argv"])
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        try:
            runpy.run_path(script, run_name="__main__")
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if e.code is not None and not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
        except BaseException:
            import traceback
            traceback.print_exc()
            code = 1
        atexit._run_exitfuncs()
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:
                pass
    finally:
        os._exit(code)


def serve(path):
    import signal
    import threading
    _preload()
    assert threading.active_count() == 1 and len(os.listdir("/proc/self/task")) == 1, \
        "torch started threads while importing: forking would not be safe"
    import gc
    gc.collect()
    gc.freeze()  # the children's collections skip torch's own objects (and keep pages shared)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    rfd, wfd = os.pipe()
    os.set_blocking(wfd, False)
    signal.set_wakeup_fd(wfd)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, "accept")
    sel.register(rfd, selectors.EVENT_READ, "signal")
    workers = {}  # pid -> the client's connection
    print("torch_zygote: serving %s (pid %d)" % (path, os.getpid()), flush=True)
    while not stop:
        for key, _ in sel.select():
            try:
                _event(key, listener, sel, workers, (rfd, wfd))
            except Exception as e:  # one client's trouble never ends the zygote (CI saw a
                # client gone before its pid was sent kill it: every later worker then imported)
                print("torch_zygote: %s: %s" % (type(e).__name__, e), flush=True)
    for pid, conn in workers.items():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    listener.close()
    os.unlink(path)
    import resource
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    print("torch_zygote: %d workers forked, %.0f CPU-s in them"
          % (FORKED, ru.ru_utime + ru.ru_stime), flush=True)


def _event(key, listener, sel, workers, pipe):
    if key.data == "accept":
        _accept(listener, sel, workers, pipe)
    elif key.data == "signal":
        os.read(pipe[0], 4096)
        _reap(sel, workers)
    else:  # a client's connection: closed (its process ended) or nonsense
        pid = key.data
        try:
            gone = not key.fileobj.recv(1)
        except OSError:
            gone = True
        if gone:
            sel.unregister(key.fileobj)
            if pid in workers:
                _kill(pid)  # reaped as any other, reported to no one


def _kill(pid):
    import signal
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _accept(listener, sel, workers, pipe):
    conn, _ = listener.accept()
    # the client sends its request as soon as it connects; one that is slower (descheduled on a
    # loaded machine) is dropped after a second, and execs the worker itself, rather than hold
    # up the zygote's loop and with it every other worker's reported end
    conn.settimeout(1)
    try:
        data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
        while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
            more = conn.recv(MAX_REQUEST)
            if not more:
                break
            data += more
        req = json.loads(data)
    except (OSError, ValueError):
        conn.close()
        return
    why = _refusal(req, START_ENV) if len(fds) == 3 else "three streams were not sent"
    if why:
        print("torch_zygote: refused %s: %s" % (req.get("argv"), why), flush=True)
        conn.sendall(json.dumps({"refused": why}).encode() + b"\n")
        conn.close()
        for fd in fds:
            os.close(fd)
        return
    conns = [key.fileobj for key in sel.get_map().values() if isinstance(key.fileobj, socket.socket)]
    pid = os.fork()
    if pid == 0:
        _child(req, fds, [listener] + conns, pipe + (sel.fileno(),))
    for fd in fds:
        os.close(fd)
    global FORKED
    FORKED += 1
    workers[pid] = conn
    try:
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    except OSError:  # the client is gone already (its runner killed it): so goes its worker
        _kill(pid)
        return
    conn.settimeout(None)
    sel.register(conn, selectors.EVENT_READ, pid)


def _reap(sel, workers):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = workers.pop(pid, None)
        if conn is None:
            continue
        if os.WIFSIGNALED(status):
            msg = {"signal": os.WTERMSIG(status)}
        else:
            msg = {"exit": os.waitstatus_to_exitcode(status)}
        try:
            sel.unregister(conn)
        except (KeyError, ValueError):
            pass
        try:
            conn.sendall(json.dumps(msg).encode() + b"\n")
        except OSError:
            pass
        conn.close()


def main(argv):
    if len(argv) >= 2 and argv[0] == "serve":
        serve(argv[1])
    elif len(argv) >= 3 and argv[0] == "client":
        client(argv[1], argv[2:])
    else:
        print("usage: torch_zygote.py serve SOCKET | client SOCKET SCRIPT [ARG...]",
              file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
