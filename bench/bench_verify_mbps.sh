#!/bin/sh
# bench_verify_mbps.sh — how fast `shardcheck verify` reads JSON, and in how much memory.
#
# What it is for: issue 12's throughput and memory goals (>= 200 MB/s of JSON end to end
# on one core; peak memory under 2x the largest file).  It merges the shard-layout family
# (the largest) into one golden-shaped file, as bench_verify.sh does, and verifies two
# candidates against it: that file itself, and the same answers as a results file (one
# {"tcId","rank","values"} entry per test and rank, as tools/harness writes), the latter
# also through the jansson tree path (SHARDCHECK_VERIFY_TREES=1; BENCH_TREES=0 skips it).
# Both candidates are also verified against the family's files as built (GOLDEN's own), whose
# sha256 the build knows (golden_trust.c), which is what a vendor's verify reads; the merged
# file is no file of the corpus and is validated like any other.
# Per run it takes the child's CPU time (user + sys from wait4, one thread: one core) and its peak RSS
# (ru_maxrss: anonymous and mapped file pages alike, see below), and prints, over
# BENCH_REPEAT runs (5), min/median/max of
#   - MB/s of JSON read: golden bytes + candidate bytes over CPU seconds (and over wall),
#   - MB/s of candidate alone,
#   - peak RSS, and its ratio to the largest file (golden or candidate).
# Then the part of a run no candidate byte causes, against the corpus as built: verify of a
# results file with no entries under --answered (the process's start, the MANIFEST's sha256
# of the family's files, the golden index; exit 77, nothing checked), and `shardcheck
# --version` (the start alone).  Subtracted from a run's CPU it leaves the candidate's own
# cost; issue 36's 500 MB/s of candidate needs the whole run within size / 500 MB/s, so it
# prints what that leaves the candidate, or that the fixed cost alone is over it.
# The peer is the same command's own input size: there is no other verifier to run.
#
# Usage: bench/bench_verify_mbps.sh
#   SHARDCHECK=path (default: $top_builddir/tools/shardcheck; a libtool wrapper is
#   bypassed: its .libs binary runs with LD_LIBRARY_PATH, so the shell is not timed);
#   SHARDCHECK_PYTHON (default $top_srcdir/.venv/bin/python, else python3); GOLDEN=dir;
#   BENCH_REPEAT=N.  Not run by `make check` (timing never happens inside tests).
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
py=${SHARDCHECK_PYTHON:-$top_srcdir/.venv/bin/python}
[ -x "$py" ] || py=python3
golden=${GOLDEN:-$top_srcdir/golden}
sc=${SHARDCHECK:-}
if [ -z "$sc" ]; then
  for c in "$top_builddir/tools/shardcheck" ./tools/shardcheck; do
    [ -x "$c" ] && { sc=$c; break; }
  done
fi
[ -n "$sc" ] && [ -x "$sc" ] || { echo "bench_verify_mbps: shardcheck not found (set SHARDCHECK)" >&2; exit 2; }
bdir=$(cd "$(dirname "$sc")/.." && pwd)
if [ -x "$(dirname "$sc")/.libs/shardcheck" ]; then
  sc=$(dirname "$sc")/.libs/shardcheck
  LD_LIBRARY_PATH="$bdir/lib/.libs:$bdir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_verify_mbps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

exec "$py" - "$sc" "$golden" "$tmp" "${BENCH_REPEAT:-5}" <<'PY'
import hashlib, json, os, resource, shutil, subprocess, sys, time
sc, golden, tmp, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
FAM = "shard-layout"
fdir = os.path.join(golden, FAM)
files = sorted(os.path.join(fdir, f) for f in os.listdir(fdir) if f.endswith(".json"))
merged = None
for path in files:
    with open(path) as fh:
        doc = json.load(fh)
    if merged is None:
        merged = {k: v for k, v in doc.items() if k != "testGroups"}
        merged["testGroups"], merged["notes"] = [], {}
    merged["notes"].update(doc.get("notes", {}))
    merged["testGroups"] += doc["testGroups"]
merged["numberOfTests"] = ncases = sum(len(g["tests"]) for g in merged["testGroups"])
gdir = os.path.join(tmp, "golden")
os.makedirs(os.path.join(gdir, FAM))
cand = os.path.join(gdir, FAM, "all.json")
with open(cand, "w") as fh:
    json.dump(merged, fh, separators=(",", ":"))
if os.path.isdir(os.path.join(golden, "schemas")):
    shutil.copytree(os.path.join(golden, "schemas"), os.path.join(gdir, "schemas"))
with open(os.path.join(gdir, "MANIFEST"), "w") as fh:  # verify checks it first
    for root, _, names in sorted(os.walk(gdir)):
        for nm in sorted(names):
            full = os.path.join(root, nm)
            if nm != "MANIFEST":
                with open(full, "rb") as f:
                    fh.write("%s  %s\n" % (hashlib.sha256(f.read()).hexdigest(),
                                           os.path.relpath(full, gdir)))
size = os.path.getsize(cand)

# The same cases as a results file, the form the harness writes (tools/harness/torch_worker.py):
# one entry per (test, rank), {"tcId","rank","values"}, or {"tcId","error"} for invalid tests.
res = []
for g in merged["testGroups"]:
    for t in g["tests"]:
        e = t["expected"]
        if t["result"] == "invalid":
            res.append({"tcId": t["tcId"], "error": "rejected"})
            continue
        pr = e.get("perRank", {})
        nr = len(next(iter(pr.values()))) if pr else 0
        common = {k: v for k, v in e.items() if k not in ("perRank", "alternatives")}
        if not nr:
            res.append({"tcId": t["tcId"], "values": common})
        for r in range(nr):
            v = dict(common)
            v.update({k: a[r] for k, a in pr.items()})
            res.append({"tcId": t["tcId"], "rank": r, "values": v})
rfile = os.path.join(tmp, "results.json")
with open(rfile, "w") as fh:
    json.dump({"family": FAM, "results": res}, fh, separators=(",", ":"))
rsize = os.path.getsize(rfile)
del merged["testGroups"], doc, res

# GNU time forks the verify itself: a child forked from this Python would inherit its peak
# RSS (Linux keeps the larger of the old and new image's across exec), so rusage is taken
# there.  Without GNU time, rusage of our own child is an upper bound.
# Peak RSS is ru_maxrss (GNU time's %M): every page resident in the process at its peak,
# anonymous memory and mapped file pages alike (verify maps its inputs, json_map.c), so a
# mapping does not hide the bytes verify holds; the kernel's page cache, shared with every
# reader of the file (and there for read() too), is not the process's and is not counted.
gnu_time = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
tfile = os.path.join(tmp, "time.out")
med = lambda v: v[len(v) // 2]


def measure(candidate, env=None, golden_dir=None, cmd=None, ok=(0,)):
    cpus, walls, rss = [], [], []
    cmd = cmd or [sc, "verify", "--family", FAM, "--candidate", candidate, "--golden",
                  golden_dir or gdir]
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        p = subprocess.Popen(([gnu_time, "-f", "%U %S %M", "-o", tfile] if gnu_time else []) + cmd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env=dict(os.environ, **(env or {})))
        err = p.stderr.read()
        # wait4: the CPU of GNU time and the verify it waited for, in microseconds (GNU
        # time's own %U %S have 10 ms steps, a seventh of a run here); about 1 ms is time's
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        walls.append(time.perf_counter() - t0)
        if p.returncode not in ok:
            sys.exit("bench_verify_mbps: verify exited %d: %s" % (p.returncode, err[-400:]))
        if gnu_time:
            m = open(tfile).read().split()[-1]
            cpus.append(ru.ru_utime + ru.ru_stime)
            rss.append(int(m) * 1024)
        else:
            ru = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(ru.ru_utime + ru.ru_stime - sum(cpus) - sum(measure.before))
            rss.append(ru.ru_maxrss * 1024)
    if not gnu_time:
        measure.before += cpus
    cpus.sort(); walls.sort(); rss.sort()
    return cpus, walls, rss
measure.before = []


def show(title, csize, cpus, walls, rss, gsize=None):
    gsize = gsize or size
    big = max(gsize, csize)
    mb = lambda s: (gsize + csize) / s / 1e6
    print(title)
    print("  cpu s min/med/max %.3f/%.3f/%.3f; wall s %.3f/%.3f/%.3f (%d runs)"
          % (cpus[0], med(cpus), cpus[-1], walls[0], med(walls), walls[-1], repeat))
    print("  JSON read (golden + candidate): %.0f MB/s cpu (best; median %.0f), %.0f MB/s wall (best)"
          % (mb(max(cpus[0], 1e-3)), mb(max(med(cpus), 1e-3)), mb(walls[0])))
    print("  candidate alone: %.0f MB/s cpu (best; median %.0f) (goal >= 500 MB/s, issue 36)"
          % (csize / max(cpus[0], 1e-3) / 1e6, csize / max(med(cpus), 1e-3) / 1e6))
    print("  peak RSS %.1f MiB (min/max %.1f/%.1f) = %.2fx the largest file (%.1f MiB) (goal < 2x)%s"
          % (med(rss) / 2**20, rss[0] / 2**20, rss[-1] / 2**20, med(rss) / big, big / 2**20,
             "" if gnu_time else " (no GNU time: includes this Python's size)"))


print("verify %s: %d cases; golden %.1f MB (one golden-shaped file); cpu from wait4"
      % (FAM, ncases, size / 1e6))
show("golden-shaped candidate (the golden file itself, %.1f MB):" % (size / 1e6), size,
     *measure(cand))
# The corpus as built: its files' sha256 are the build's (golden_trust.c), so the golden index
# skips their values unvalidated; the merged file above is no file of the corpus, and is
# validated as any other corpus would be.
fsize = sum(os.path.getsize(f) for f in files)
gcorp = measure(cand, golden_dir=golden)
show("golden-shaped candidate against the corpus as built (%d files, %.1f MB, known valid):"
     % (len(files), fsize / 1e6), size, *gcorp, gsize=fsize)
show("results file (%.1f MB, one entry per test and rank, as the harness writes):"
     % (rsize / 1e6), rsize, *measure(rfile))
rcorp = measure(rfile, golden_dir=golden)
show("results file against the corpus as built:", rsize, *rcorp, gsize=fsize)
# The fixed cost (see the header): no entry, so nothing but the start, MANIFEST and index
empty = os.path.join(tmp, "empty.json")
with open(empty, "w") as fh:
    json.dump({"family": FAM, "results": []}, fh)
fixed = measure(None, cmd=[sc, "verify", "--family", FAM, "--candidate", empty, "--golden",
                           golden, "--answered"], ok=(77,))[0][0]
start = measure(None, cmd=[sc, "--version"])[0][0]
print("fixed cost against the corpus as built (no candidate entry, --answered, which also "
      "passes over every golden test unanswered: an upper bound; min cpu s): %.3f, of which "
      "the process's start (--version) %.3f" % (fixed, start))
for what, csize, cpus in (("golden-shaped", size, gcorp[0]), ("results file", rsize, rcorp[0])):
    own, budget = max(cpus[0] - fixed, 0.0), csize / 500e6
    print("  %s: the candidate's own cost %.3f s (%.0f MB/s); 500 MB/s needs the whole run "
          "within %.3f s: %s" % (what, own, csize / max(own, 1e-3) / 1e6, budget,
                                 "below the fixed cost alone" if budget <= fixed else
                                 "the candidate within %.3f s (%.1f GB/s)"
                                 % (budget - fixed, csize / (budget - fixed) / 1e9)))
if os.environ.get("BENCH_TREES", "1") == "1":  # the jansson tree path, for the before figure
    show("results file, jansson tree path (SHARDCHECK_VERIFY_TREES=1):", rsize,
         *measure(rfile, {"SHARDCHECK_VERIFY_TREES": "1"}))
PY
