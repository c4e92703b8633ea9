#!/bin/sh
# bench_verify.sh — `shardcheck verify` vs torch 2.13 on the shard-layout family.
#
# What it is for: the issue's throughput figure.  In one run it times
#   (a) `shardcheck verify --family shard-layout` with the golden file itself as
#       the candidate (load + compare of every per-rank expectation), and
#   (b) torch 2.13 computing the same cases through tools/harness (adapter time
#       only: JSON loading and schema checks are not charged to torch),
# and prints both rates in per-rank expectations per second and their ratio
# (goal: verify >= 250x torch, issue 12).  Both sides see the same cases: the family's
# files merged into one golden/candidate file in a temporary directory.
#
# Usage: bench/bench_verify.sh [MAX_CASES]
#   SHARDCHECK=path/to/shardcheck (default: $top_builddir/tools/shardcheck,
#   then ./tools/shardcheck); SHARDCHECK_PYTHON (default: $top_srcdir/.venv/bin/python);
#   GOLDEN=dir (default: $top_srcdir/golden); BENCH_REPEAT=N verify runs (3): the median
#   is used and min/median/max printed (the machine is shared and noisy).
# Not run by `make check` (timing never happens inside tests).
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
py=${SHARDCHECK_PYTHON:-$top_srcdir/.venv/bin/python}
golden=${GOLDEN:-$top_srcdir/golden}
max=${1:-}
sc=${SHARDCHECK:-}
if [ -z "$sc" ]; then
  for c in "$top_builddir/tools/shardcheck" ./tools/shardcheck; do
    [ -x "$c" ] && { sc=$c; break; }
  done
fi
[ -n "$sc" ] && [ -x "$sc" ] || { echo "bench_verify: shardcheck not found (set SHARDCHECK)" >&2; exit 2; }
# A libtool wrapper script is bypassed (its .libs binary runs with the build's libraries), so
# the shell that wraps an uninstalled build is not charged to verify.
if [ -x "$(dirname "$sc")/.libs/shardcheck" ]; then
  bdir=$(cd "$(dirname "$sc")/.." && pwd)
  sc=$(dirname "$sc")/.libs/shardcheck
  LD_LIBRARY_PATH="$bdir/lib/.libs:$bdir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi
[ -x "$py" ] || { echo "bench_verify: no python at $py (tools/harness/setup_venv.sh)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_verify.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

exec "$py" - "$sc" "$golden" "$top_srcdir/tools/harness" "$tmp" "$max" "${BENCH_REPEAT:-3}" <<'PY'
import json, os, shutil, subprocess, sys, time
sc, golden, harness, tmp, maxc, repeat = sys.argv[1:7]
sys.path.insert(0, harness)
import harnesslib as hl

FAM = "shard-layout"
files = hl.family_files(golden, FAM)
if not files:
    sys.exit("bench_verify: no golden files in %s/%s" % (golden, FAM))
maxc = int(maxc) if maxc else None

# One merged golden file (first MAX_CASES cases), used as golden and candidate.
merged, ntests = None, 0
for path in files:
    doc = hl.load_file(path)
    if merged is None:
        merged = {k: v for k, v in doc.items() if k != "testGroups"}
        merged["testGroups"], merged["notes"] = [], dict(doc.get("notes", {}))
    merged["notes"].update(doc.get("notes", {}))
    for g in doc["testGroups"]:
        if maxc is not None and ntests >= maxc:
            break
        tests = g["tests"] if maxc is None else g["tests"][:maxc - ntests]
        ntests += len(tests)
        merged["testGroups"].append(dict(g, tests=tests))
merged["numberOfTests"] = ntests
gdir = os.path.join(tmp, "golden")
os.makedirs(os.path.join(gdir, FAM))
if os.path.isdir(os.path.join(golden, "schemas")):
    shutil.copytree(os.path.join(golden, "schemas"), os.path.join(gdir, "schemas"))
cand = os.path.join(gdir, FAM, "all.json")
with open(cand, "w") as fh:
    json.dump(merged, fh, separators=(",", ":"))
# verify checks the golden directory's MANIFEST (sha256 of every file under it)
import hashlib
with open(os.path.join(gdir, "MANIFEST"), "w") as fh:
    for root, _, names in sorted(os.walk(gdir)):
        for nm in sorted(names):
            if nm == "MANIFEST":
                continue
            full = os.path.join(root, nm)
            with open(full, "rb") as f:
                fh.write("%s  %s\n" % (hashlib.sha256(f.read()).hexdigest(),
                                       os.path.relpath(full, gdir)))
values = sum(hl.rank_count(t.get("expected", {})) for g in merged["testGroups"]
             for t in g["tests"] if t.get("result") != "invalid")

import resource
walls, cpus = [], []
for _ in range(max(1, int(repeat))):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sc, "verify", "--family", FAM, "--candidate", cand, "--golden", gdir],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode != 0:
        sys.exit("bench_verify: shardcheck verify exited %d: %s" % (p.returncode, p.stderr[-400:]))
    walls.append(dt)
    cpus.append(cpu)
walls.sort()
cpus.sort()
med = lambda v: v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
best, best_cpu = med(walls), med(cpus)  # the median: the machine is shared and noisy

mod = hl.load_adapter("adapters.torch_shard_layout")
res = hl.run_family(FAM, mod, gdir, schema=False)
if res.failed:
    sys.exit("bench_verify: torch disagrees on %d cases; run tools/harness/run.py" % res.failed)

v_rate, v_cpu_rate = values / best, values / best_cpu
t_rate = res.rank_values / res.compute_seconds
t_cpu_rate = res.rank_values / res.compute_cpu_seconds
print("shard-layout: %d cases, %d per-rank expectations" % (ntests, values))
print("shardcheck verify: %.3f s wall, %.3f s cpu (median of %s; wall min/med/max "
      "%.3f/%.3f/%.3f s): %.0f expectations/s wall, %.0f/s cpu (whole process: load both "
      "files + compare)" % (best, best_cpu, repeat, walls[0], best, walls[-1], v_rate, v_cpu_rate))
print("torch %s via harness: %.3f s wall, %.3f s cpu: %.0f expectations/s wall, %.0f/s cpu "
      "(adapter time only)" % (mod.tc.TORCH_VERSION, res.compute_seconds,
                               res.compute_cpu_seconds, t_rate, t_cpu_rate))
print("ratio verify/torch (medians; torch timed once): %.0fx wall, %.0fx cpu (goal >= 250x)"
      % (v_rate / t_rate, v_cpu_rate / t_cpu_rate))
PY
