# testlib.sh — the one scaffold of the shell tests, sourced first:
#   . "$(dirname "$0")/testlib.sh"        (fuzz/replay.sh: "$top_srcdir/conformance/tests/testlib.sh")
# Where things are (make check exports top_srcdir, top_builddir and SHARDCHECK; run by hand
# from the build directory, they default from this file's place and the current directory),
# TAP output (tap_ok, tap_not_ok, tap_skip, tap_done), the shared checks (expect_exit,
# expect_out, expect_file, expect_passes, expect_pass_or_skip), a scratch directory removed
# at exit (use_tmpdir), and skipping the whole test with its reason (skip_all, need_*).
# A test built on it still fails on its own subject: every check here reports not ok unless
# the command's exit code and output are what the test asked for.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$(pwd)}"
: "${SHARDCHECK:=$top_builddir/tools/shardcheck}"
# In a build tree $SHARDCHECK is libtool's wrapper script: before each run it starts bash and a
# sed to set the library path (about 20 ms of CPU; make check runs shardcheck thousands of times,
# a tenth of its CPU: issue 36).  The tests run the program it wraps, with the library path it
# sets, read from the wrapper itself: the same binary, arguments and libraries.
if [ -x "${SHARDCHECK%/*}/.libs/${SHARDCHECK##*/}" ] &&
   lt_path=$(sed -n 's/^ *LD_LIBRARY_PATH="\(.*\):\$LD_LIBRARY_PATH"$/\1/p' "$SHARDCHECK" 2>/dev/null) &&
   [ -n "$lt_path" ]; then
  LD_LIBRARY_PATH=$lt_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; export LD_LIBRARY_PATH
  SHARDCHECK=${SHARDCHECK%/*}/.libs/${SHARDCHECK##*/}
fi
S=$SHARDCHECK
G=$top_srcdir/golden
PY=${SHARDCHECK_PYTHON:-python3}
tests_dir=$(cd "$(dirname "$0")" && pwd)   # this directory: golden_results.py and friends

# ---- TAP ----
TAP_N=0
TAP_FAIL=0
tap_ok() { TAP_N=$((TAP_N+1)); echo "ok $TAP_N - $1"; }
# tap_not_ok DESC [DETAIL...]: each detail on its own "#" line
tap_not_ok() { TAP_N=$((TAP_N+1)); TAP_FAIL=$((TAP_FAIL+1)); echo "not ok $TAP_N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
tap_skip() { TAP_N=$((TAP_N+1)); echo "ok $TAP_N - $1 # SKIP $2"; }
# tap_done: the plan; the test's exit status is 0 only when nothing failed
tap_done() { echo "1..$TAP_N"; [ "$TAP_FAIL" -eq 0 ]; }

# ---- skipping ----
# skip_all REASON: nothing of this test can run here (automake counts it SKIP, not PASS)
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
# Whether this make check walks the slow tests' paths on samples: the test job's ASan+UBSan build
# (SHARDCHECK_SANITIZED=1) and its distcheck (SHARDCHECK_SAMPLED=1) do, the plain build's runs every
# case (issue 36: CI time).  Where a test samples, its comment says what it keeps.
sampled() { [ "${SHARDCHECK_SANITIZED:-0}" = 1 ] || [ "${SHARDCHECK_SAMPLED:-0}" = 1 ]; }
# need_python WHAT: skip unless $PY runs (SHARDCHECK_PYTHON, default python3)
need_python() { "$PY" -c 'import json' 2>/dev/null || skip_all "no python3 at $PY (${1:-needed})"; }
# need_golden FAMILY...: skip unless the committed corpus has these families
need_golden() {
  for f in "$@"; do [ -d "$G/$f" ] || skip_all "golden/$f not generated yet"; done
}
# have_mpi: $MPIRUN names a program here; have_mpi_build: and shardcheck was built with MPI
have_mpi() { [ -n "${MPIRUN:-}" ] && command -v "$MPIRUN" >/dev/null 2>&1; }
have_mpi_build() {
  have_mpi && ! "$SHARDCHECK" run --backend mpi --max-cases 1 --golden "$G" 2>&1 | grep -q "built without MPI"
}

# ---- a scratch directory ----
# use_tmpdir: $tmp, removed (read-only parts too) when the test exits
use_tmpdir() {
  tmp=$(mktemp -d) || { echo "Bail out! mktemp -d failed"; exit 99; }
  trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
}

# use_torch_zygote PYTHON (after use_tmpdir): the test's torch workers fork from one process that
# imported torch (tools/harness/torch_zygote.py; about 3 CPU-s saved per worker), the job's own
# where tools/test_job.sh runs one (SHARDCHECK_TORCH_ZYGOTE), else one for this test, stopped
# with it.  SHARDCHECK_ZYGOTE=0: every worker imports torch itself.
use_torch_zygote() {
  [ -z "${SHARDCHECK_TORCH_ZYGOTE:-}" ] && [ "${SHARDCHECK_ZYGOTE:-1}" != 0 ] || return 0
  OMP_NUM_THREADS=1 "$1" "$top_srcdir/tools/harness/torch_zygote.py" serve "$tmp/zygote.sock" \
    >"$tmp/zygote.log" 2>&1 &
  zygote_pid=$!
  SHARDCHECK_TORCH_ZYGOTE=$tmp/zygote.sock; export SHARDCHECK_TORCH_ZYGOTE
  trap 'kill $zygote_pid 2>/dev/null; wait $zygote_pid 2>/dev/null; chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
}

# sample_corpus DIR FAMILY[:FILE,FILE..]...: DIR becomes a corpus holding those families (only
# the named files, without .json; all of them when none is named), the schemas and a MANIFEST:
# where a sampled make check (sampled above) runs a test on fewer cases with every path kept
sample_corpus() {
  local dir=$1 arg fam files f; shift
  mkdir -p "$dir" && cp -R "$G/schemas" "$dir/" || return 1
  for arg in "$@"; do
    fam=${arg%%:*}; mkdir -p "$dir/$fam"
    if [ "$fam" = "$arg" ]; then cp "$G/$fam"/*.json "$dir/$fam/" || return 1; continue; fi
    files=${arg#*:}
    for f in $(echo "$files" | tr , ' '); do cp "$G/$fam/$f.json" "$dir/$fam/" || return 1; done
  done
  write_manifest "$dir"
}
# corpus_of_tests DIR FAMILY FILE PREDICATE [GROUPS]: DIR becomes a corpus (the schemas and a
# MANIFEST) of golden FAMILY/FILE.json's tests for which the Python expression PREDICATE, over the
# test group g and the test t (math imported), is true; groups left empty are dropped, and with
# GROUPS only the first GROUPS of the rest are kept.  For tests that run a few chosen cases.
corpus_of_tests() {
  local dir=$1 fam=$2 file=$3 pred=$4 groups=${5:-0}
  mkdir -p "$dir/$fam" && cp -R "$G/schemas" "$dir/" || return 1
  "$PY" - "$G/$fam/$file.json" "$dir/$fam/$file.json" "$pred" "$groups" <<'PYEOF' || return 1
import json, math, sys
src, dst, pred, most = sys.argv[1], sys.argv[2], compile(sys.argv[3], "PREDICATE", "eval"), int(sys.argv[4])
d = json.load(open(src))
kept = []
for g in d["testGroups"]:
    tests = [t for t in g["tests"] if eval(pred, {"math": math}, {"g": g, "t": t})]
    if tests:
        kept.append(dict(g, tests=tests))
kept = kept[:most] if most else kept
d["testGroups"], d["numberOfTests"] = kept, sum(len(g["tests"]) for g in kept)
json.dump(d, open(dst, "w"))
PYEOF
  write_manifest "$dir"
}
# write_manifest DIR: DIR/MANIFEST lists "sha256  path" of every other file under DIR, sorted
# (golden/MANIFEST's form, and a certify package's): for corpora and packages a test builds
write_manifest() {
  (cd "$1" && find . -type f ! -name MANIFEST | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >MANIFEST)
}

# ---- checks ----
# expect_exit DESC CODE REGEX CMD...: CMD exits CODE and its stderr or stdout matches REGEX.
expect_exit() {
  desc=$1; code=$2; re=$3; shift 3
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -eq "$code" ] && printf '%s' "$out" | grep -Eq -- "$re"; then tap_ok "$desc"
  else tap_not_ok "$desc" "exit $rc (want $code)" "output: $(printf '%s' "$out" | head -c 400)" "want /$re/"; fi
}
# expect_out DESC WANT CMD...: CMD exits 0 and prints exactly WANT.
expect_out() {
  desc=$1; want=$2; shift 2
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -eq 0 ] && [ "$out" = "$want" ]; then tap_ok "$desc"
  else tap_not_ok "$desc" "exit $rc" "got:  $(printf '%s' "$out" | head -c 600)" "want: $want"; fi
}
# expect_file DESC FILE TEXT: FILE holds TEXT (a fixed string).
expect_file() {
  if grep -qF -- "$3" "$2" 2>/dev/null; then tap_ok "$1"
  else tap_not_ok "$1" "$2 lacks: $3" "$(head -c 400 "$2" 2>/dev/null)"; fi
}
# expect_passes DESC CMD...: exit 0 and a summary line "N passed, 0 failed" with N >= 1.
expect_passes() {
  desc=$1; shift
  out=$("$@" 2>&1); rc=$?
  last=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ "$rc" -eq 0 ] && printf '%s' "$last" | grep -Eq '^[1-9][0-9]* passed, 0 failed'; then tap_ok "$desc: $last"
  else tap_not_ok "$desc" "exit $rc" "$(printf '%s\n' "$out" | grep -v '^ok' | head -c 900)"; fi
}
# expect_pass_or_skip DESC CMD...: exit 77 (what CMD needs is not here) is a skip with CMD's
# reason (its "skipped" line, else its last line); exit 0 passes, and a summary line, if CMD
# prints one, must say "N passed, 0 failed" with N >= 1; anything else fails.
expect_pass_or_skip() {
  desc=$1; shift
  out=$("$@" 2>&1); rc=$?
  last=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ "$rc" -eq 77 ]; then
    why=$(printf '%s\n' "$out" | grep -m 1 skipped)
    tap_skip "$desc" "${why:-$(printf '%s\n' "$out" | tail -n 1)}"
  elif [ "$rc" -eq 0 ] && { [ -z "$last" ] || printf '%s' "$last" | grep -Eq '^[1-9][0-9]* passed, 0 failed'; }; then
    tap_ok "$desc${last:+: $last}"
  else tap_not_ok "$desc" "exit $rc" "$(printf '%s\n' "$out" | grep -v '^ok' | tail -c 900)"; fi
}
