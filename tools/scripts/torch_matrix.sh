#!/usr/bin/env bash
# tools/scripts/torch_matrix.sh — cross-check the golden corpus against every supported torch release
# for real, and write the table (docs/torch-releases.md quotes its last run):
#   for each release (the newest patch of each minor `shardcheck registry releases` lists): a venv with that torch; the harness
#   (tools/harness/run.py, one process per family, judging against the release it imports:
#   each test's byVersion answer for it, else its top-level one) on a deterministic sample;
#   the torch backend (real gloo processes, `mpirun -np 2` and `-np 4`, `shardcheck run
#   --backend torch --torch-version R --max-cases M`, a deterministic sample); with
#   MATRIX_FINDINGS=1 also every docs/findings reproducer (tools/scripts/findings_by_release.sh).
#   Every disagreement is explained: a torch-backend failure by the recorded finding its
#   case is (tools/scripts/torch_matrix_explain.py), else it is listed as unexplained and the script
#   exits 1; a harness disagreement is always unexplained (the modelled differences are in
#   the golden answers, so none is expected).
#
#   bash tools/scripts/torch_matrix.sh [_build]        (the build directory with tools/shardcheck)
# Environment:
#   MATRIX_RELEASES   default: every patch `shardcheck registry releases` prints
#   MATRIX_STRIDE     harness: every K-th case (default: each family's registry stride, as CI)
#   MATRIX_MAX_CASES  torch backend: cases per family and np (default 24; 0: skip it)
#   MATRIX_NP         default "2 4"
#   MATRIX_FINDINGS   1: also run the findings reproducers
#   SHARDCHECK_VENVS  where venvs are made (default $repo/.venvs); an existing
#                     $SHARDCHECK_VENVS/torch-X or /work/venvs/torch-X is reused, and the
#                     repo's .venv for the pinned release when it holds that torch.  A new
#                     one is `PIP_CONSTRAINT=/dev/null pip install torch==X` (the registry's
#                     default wheel, which runs on a CPU with its CUDA library packages;
#                     2.13.0 comes from the disk wheel when pip's find-links has it)
#   MATRIX_OUT        the table (default BUILD/torch-matrix.md)
# Exit: 0 every disagreement explained, 1 one is not, 2 a set-up problem.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
build=${1:-_build}
S="$here/$build/tools/shardcheck"
[ -x "$S" ] || { echo "torch_matrix: no $S (build first: tools/build.sh $build)" >&2; exit 2; }
G="$here/golden"
releases=${MATRIX_RELEASES:-$("$S" registry releases | cut -d" " -f2)}
maxc=${MATRIX_MAX_CASES:-24}
nps=${MATRIX_NP:-"2 4"}
venvs=${SHARDCHECK_VENVS:-$here/.venvs}
out=${MATRIX_OUT:-$here/$build/torch-matrix.md}
work="$here/$build/torch-matrix"
mkdir -p "$work"
MPIARGS="--oversubscribe --bind-to none"
[ "$(id -u)" -eq 0 ] && MPIARGS="$MPIARGS --allow-run-as-root"
export OMPI_MCA_mpi_warn_on_fork=0
t0=$(date +%s)

torch_of() { "$1/bin/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null; }

# venv_for X: a directory whose python imports torch X (reused or made)
venv_for() {
  local x=$1 d
  for d in "$venvs/torch-$x" "/work/venvs/torch-$x" "$here/.venv"; do
    [ -x "$d/bin/python" ] && [ "$(torch_of "$d")" = "$x" ] && { echo "$d"; return 0; }
  done
  d="$venvs/torch-$x"
  echo "torch_matrix: making $d (torch $x)" >&2
  python3 -m venv "$d" >&2 || return 1
  PIP_CONSTRAINT=/dev/null "$d/bin/python" -m pip install --quiet "torch==$x" numpy==2.4.6 \
    jsonschema==4.26.0 jsonschema-rs==0.58.3 >&2 || return 1
  [ "$(torch_of "$d")" = "$x" ] && echo "$d"
}

declare -A cell
unexplained=()
fams=()
# the harness families whose answers differ by torch release (not jax's threefry)
torchfams=" $("$S" registry --names --capable releases families | tr '\n' ' ') "
for fk in $("$S" families --harness); do
  f=${fk%%:*}
  case $torchfams in *" $f "*) fams+=("$fk") ;; esac
done
# the families the torch backend answers: its worker's own table
workerfams=$(python3 tools/harness/torch_worker.py --families)
vlist=()
for x in $releases; do
  v=$(venv_for "$x") || { echo "torch_matrix: no venv for torch $x" >&2; exit 2; }
  vlist+=("$v")
  minor=${x%.*}
  echo "=== torch $x ($v) ==="
  for fk in "${fams[@]}"; do
    f=${fk%%:*}; k=${MATRIX_STRIDE:-${fk##*:}}
    log="$work/harness-$x-$f.json"
    "$v/bin/python" tools/harness/run.py --golden "$G" --family "$f" --stride "$k" --json \
      --no-schema >"$log" 2>"$work/harness-$x-$f.err"
    read -r p fl sk < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["passed"], d["failed"], d["skipped"])' "$log" 2>/dev/null || echo "0 0 0")
    [ -s "$log" ] || { echo "torch_matrix: harness $f on torch $x did not run:"; tail -n 5 "$work/harness-$x-$f.err"; fl=1; }
    c=$((p + fl))
    cell["$f|harness|$x"]="$p/$c"
    [ "$fl" -eq 0 ] || { cell["$f|harness|$x"]="$p/$c, **$fl unexplained**"
      unexplained+=("harness $f torch $x: $fl (see $work/harness-$x-$f.json)"); }
    [ "$sk" -gt 0 ] && cell["$f|harness|$x"]+=" (+$sk skipped)"
    echo "harness $f (every ${k}th): ${cell["$f|harness|$x"]}"
  done
  [ "$maxc" -gt 0 ] || continue
  for np in $nps; do
    for f in $workerfams; do
      log="$work/torch-$x-np$np-$f.json"
      SHARDCHECK_PYTHON="$v/bin/python" timeout 1200 mpirun $MPIARGS -np "$np" "$S" run \
        --backend torch --family "$f" --golden "$G" --torch-version "$minor" \
        --max-cases "$maxc" --json >"$log" 2>"$work/torch-$x-np$np-$f.err"
      res=$(python3 tools/scripts/torch_matrix_explain.py "$G" "$log" 2>/dev/null) || res=""
      if [ -z "$res" ]; then
        cell["$f|torch np $np|$x"]="**did not run**"
        unexplained+=("torch backend $f np $np torch $x: $(tail -n 1 "$work/torch-$x-np$np-$f.err")")
        continue
      fi
      txt=$(python3 - "$res" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
run = d["cases"] - d["notSupported"]
s = "%d/%d" % (d["agree"], run)
if d["explained"]:
    s += ", %d finding%s (%s)" % (sum(d["explained"].values()),
        "" if sum(d["explained"].values()) == 1 else "s",
        "; ".join("%s: %d" % kv for kv in sorted(d["explained"].items())))
if d["unexplained"]:
    s += ", **%d unexplained**" % len(d["unexplained"])
print(s)
for u in d["unexplained"]:
    print("UNEXPLAINED " + u)
PY
)
      cell["$f|torch np $np|$x"]=$(printf '%s\n' "$txt" | head -n1)
      while IFS= read -r u; do unexplained+=("torch $x np $np: ${u#UNEXPLAINED }"); done \
        < <(printf '%s\n' "$txt" | grep '^UNEXPLAINED' || true)
      echo "torch backend $f np $np: ${cell["$f|torch np $np|$x"]}"
    done
  done
done

{
  echo "# torch release matrix"
  echo
  echo "\`bash tools/scripts/torch_matrix.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores; harness: each family's registry stride${MATRIX_STRIDE:+ overridden to $MATRIX_STRIDE}; torch backend: --max-cases $maxc per family and np, gloo on CPU). A cell is agreements/cases."
  echo
  printf '| family | check |'; for x in $releases; do printf ' torch %s |' "$x"; done; echo
  printf '|---|---|'; for x in $releases; do printf -- '---|'; done; echo
  for fk in "${fams[@]}"; do
    f=${fk%%:*}
    for chk in harness $(for np in $nps; do [ "$maxc" -gt 0 ] && printf 'torch_np_%s ' "$np"; done); do
      key=${chk//_/ }
      any=""
      for x in $releases; do any+=${cell["$f|$key|$x"]:-}; done
      [ -n "$any" ] || continue   # the torch backend needs CUDA for rng-offsets: not run
      printf '| %s | %s |' "$f" "$key"
      for x in $releases; do printf ' %s |' "${cell["$f|$key|$x"]:--}"; done
      echo
    done
  done
  echo
  if [ ${#unexplained[@]} -eq 0 ]; then echo "Unexplained disagreements: none."
  else echo "Unexplained disagreements:"; for u in "${unexplained[@]}"; do echo "- $u"; done; fi
  echo
  echo "Wall time: $(( $(date +%s) - t0 )) s."
} >"$out"
if [ "${MATRIX_FINDINGS:-0}" = 1 ]; then
  echo >>"$out"; echo "## Findings by release (tools/scripts/findings_by_release.sh)" >>"$out"; echo >>"$out"
  bash tools/scripts/findings_by_release.sh "${vlist[@]}" >>"$out"
  echo >>"$out"; echo "Wall time with the findings: $(( $(date +%s) - t0 )) s." >>"$out"
fi
echo; cat "$out"
[ ${#unexplained[@]} -eq 0 ]
