"""test_torch_zygote.py — torch_zygote.py's client stands for the worker it had forked.

One zygote (it imports torch: a few seconds) serves every test here.  Each test runs a small
script through the client, as run_torch.c starts torch_worker.py, and checks what the C runner
relies on: the script's argv, environment, working directory and streams are the client's; the
client ends as the script ended (its exit status, or the same signal); killing the client kills
the forked script; and where a fork would not be the process asked for (another interpreter, a
load-time variable that differs, no zygote) the script runs by exec, not forked.  Each check
fails on a zygote that skipped the step (a mutation of torch_zygote.py makes the test fail:
exit status dropped, environment not replaced, refusal not made).
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ZYGOTE = os.path.join(os.path.dirname(HERE), "torch_zygote.py")

SCRIPT = r'''
import json, os, sys, time
what = sys.argv[1]
if what == "echo":
    line = sys.stdin.readline()
    print(json.dumps({"argv": sys.argv, "cwd": os.getcwd(), "x": os.environ.get("ZYG_X"),
                      "line": line.strip(), "torch": "torch" in sys.modules,
                      "ppid": os.getppid()}))
    print("to stderr", file=sys.stderr)
    sys.exit(int(sys.argv[2]))
if what == "kill":
    import signal
    os.kill(os.getpid(), signal.SIGKILL)
if what == "attrs":
    import resource
    print(json.dumps({"fsize": resource.getrlimit(resource.RLIMIT_FSIZE)[0],
                      "affinity": sorted(os.sched_getaffinity(0)), "torch": "torch" in sys.modules}))
    sys.exit(0)
if what == "close":
    print("bye", flush=True)
    os.close(1)
    time.sleep(8)
if what == "sleep":
    open(sys.argv[2], "w").write(str(os.getpid()))
    time.sleep(120)
'''


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    d = tmp_path_factory.mktemp("zyg")
    sock = str(d / "z.sock")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    log = open(d / "zygote.log", "w")
    p = subprocess.Popen([sys.executable, ZYGOTE, "serve", sock], env=env, stdout=log,
                         stderr=subprocess.STDOUT)
    for _ in range(600):
        if os.path.exists(sock):
            break
        assert p.poll() is None, open(d / "zygote.log").read()
        time.sleep(0.1)
    script = d / "script.py"
    script.write_text(SCRIPT)
    yield {"sock": sock, "script": str(script), "dir": d, "env": env}
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)
    log.close()


def client(z, args, env=None, stdin="", python=sys.executable, **kw):
    return subprocess.run([python, "-S", "-u", ZYGOTE, "client", z["sock"], z["script"]] + args,
                          input=stdin, capture_output=True, text=True,
                          env=env or z["env"], timeout=120, **kw)


def test_argv_env_cwd_streams_and_exit_status(zygote, tmp_path):
    env = dict(zygote["env"], ZYG_X="seen")
    r = client(zygote, ["echo", "3", "extra"], env=env, stdin="hello\n", cwd=str(tmp_path))
    assert r.returncode == 3, r.stderr
    out = json.loads(r.stdout)
    assert out["argv"] == [zygote["script"], "echo", "3", "extra"]
    assert out["cwd"] == str(tmp_path) and out["x"] == "seen" and out["line"] == "hello"
    assert out["torch"], "not forked from the zygote (torch was not imported already)"
    assert "to stderr" in r.stderr


def test_exit_status_zero(zygote):
    r = client(zygote, ["echo", "0"], stdin="x\n")
    assert r.returncode == 0 and json.loads(r.stdout)["torch"]


def test_killed_worker_kills_client_with_the_same_signal(zygote):
    r = client(zygote, ["kill"])
    assert r.returncode == -signal.SIGKILL


def test_killed_client_kills_the_worker(zygote):
    pidfile = zygote["dir"] / "sleep.pid"
    p = subprocess.Popen([sys.executable, "-S", "-u", ZYGOTE, "client", zygote["sock"],
                          zygote["script"], "sleep", str(pidfile)], env=zygote["env"])
    for _ in range(300):
        if pidfile.exists() and pidfile.read_text():
            break
        time.sleep(0.05)
    pid = int(pidfile.read_text())
    p.kill()
    p.wait()
    for _ in range(200):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("the forked worker %d outlived its killed client" % pid)


def test_load_time_variable_differs_runs_by_exec(zygote):
    env = dict(zygote["env"], OMP_NUM_THREADS="7")
    r = client(zygote, ["echo", "0"], env=env, stdin="x\n")
    assert r.returncode == 0, r.stderr
    assert not json.loads(r.stdout)["torch"], "forked although OMP_NUM_THREADS differs"


def test_other_interpreter_runs_by_exec(zygote, tmp_path):
    link = tmp_path / "python-other"
    os.symlink(sys.executable, link)  # another path: another interpreter as far as it knows
    r = client(zygote, ["echo", "0"], stdin="x\n", python=str(link))
    assert r.returncode == 0, r.stderr
    assert not json.loads(r.stdout)["torch"], "forked for another interpreter"


def test_no_zygote_runs_by_exec(zygote, tmp_path):
    z = dict(zygote, sock=str(tmp_path / "none.sock"))
    r = client(z, ["echo", "4"], stdin="x\n")
    assert r.returncode == 4 and not json.loads(r.stdout)["torch"]


def test_client_lets_go_of_the_streams(zygote):
    """The runner sees the worker's end of its pipe when the worker lets go of it, not when the
    zygote reports its end: the client keeps no copy (a peer's error was reported first)."""
    p = subprocess.Popen([sys.executable, "-S", "-u", ZYGOTE, "client", zygote["sock"],
                          zygote["script"], "close"], env=zygote["env"], stdout=subprocess.PIPE)
    t = time.monotonic()
    out = p.stdout.read()  # EOF once the worker closed its stdout
    took = time.monotonic() - t
    p.kill()
    p.wait()
    assert out == b"bye\n" and took < 5, (out, took)


def test_worker_takes_the_clients_limits_and_affinity(zygote):
    """A rank's `ulimit -f` and mpirun's core binding reach the forked worker, as they reach
    a worker the rank starts itself."""
    cpus = sorted(os.sched_getaffinity(0))
    pre = "import resource, os; resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)); " \
          "os.sched_setaffinity(0, [%d])" % cpus[-1]
    r = subprocess.run([sys.executable, "-S", "-c", pre + "; os.execv(%r, %r)" % (
        sys.executable, [sys.executable, "-S", "-u", ZYGOTE, "client", zygote["sock"],
                         zygote["script"], "attrs"])], capture_output=True, text=True,
        env=zygote["env"], timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["torch"], "not forked"
    assert out["fsize"] == 4096 and out["affinity"] == [cpus[-1]], out


def test_a_client_gone_at_once_does_not_end_the_zygote(zygote):
    """A client killed right after its request (a runner's timeout) leaves the zygote serving
    (CI: its pid reply hit a closed socket, the zygote died and every later worker imported)."""
    import socket
    for _ in range(5):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(zygote["sock"])
        req = {"argv": [zygote["script"], "sleep", os.devnull], "env": zygote["env"],
               "cwd": os.getcwd(), "python": os.path.abspath(sys.executable),
               "attributes": {"rlimits": {}, "affinity": sorted(os.sched_getaffinity(0)),
                              "umask": 0o022, "nice": os.nice(0)}}
        with open(os.devnull, "w") as null:
            socket.send_fds(s, [json.dumps(req).encode() + b"\n"], [null.fileno()] * 3)
        s.close()
    time.sleep(0.5)
    r = client(zygote, ["echo", "0"], stdin="x\n")
    assert r.returncode == 0 and json.loads(r.stdout)["torch"], r.stderr
