#!/usr/bin/env bash
# tools/scripts/findings_by_release.sh — run every reproducer in docs/findings with each torch
# release's python (torchrun, CPU, gloo) and print one table row per finding: per release
# "reproduced" (exit 1, the script's REPRODUCED or a rank's WRONG line), "fixed" (exit 0: torch
# behaved), "raises: Error" (torch refuses the input before the finding's step), "setup" (exit 2
# or anything else) or "timeout".
#   FINDINGS_ONLY=NAME   only docs/findings/NAME
#   tools/scripts/findings_by_release.sh VENV_2.11 VENV_2.12 ...   (venv directories, in release order)
#   FINDINGS_TIMEOUT=S   per run (default 240 s; a hang reproduces as its script's own
#                        process-group timeout, well below it)
# tools/scripts/torch_matrix.sh calls it; docs/findings/README.md holds the table it printed.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
limit=${FINDINGS_TIMEOUT:-240}
[ $# -ge 1 ] || { echo "usage: $0 VENV..." >&2; exit 2; }
printf '| script | N'
for v in "$@"; do printf ' | torch %s' "$("$v/bin/python" -c 'import torch; print(torch.__version__.split("+")[0])')"; done
printf ' |\n|---|---:'
for _ in "$@"; do printf '|---'; done
printf '|\n'
for f in "$here"/docs/findings/*.py; do
  name=$(basename "$f")
  case $name in _*) continue ;; esac
  [ -n "${FINDINGS_ONLY:-}" ] && [ "$name" != "$FINDINGS_ONLY" ] && continue
  n=$(grep -Eo 'nproc-per-node [0-9]+' "$f" | head -n1 | awk '{print $2}')
  [ -n "$n" ] || continue
  printf '| `%s` | %s' "$name" "$n"
  for v in "$@"; do
    port=$(( 29500 + RANDOM % 2000 ))
    out=$(cd "$here" && timeout "$limit" "$v/bin/python" -m torch.distributed.run --nproc-per-node "$n" \
          --master-port "$port" "$f" 2>&1); rc=$?
    case $rc in
      0) verdict="fixed" ;;
      124) verdict="timeout" ;;
      *) if printf '%s' "$out" | grep -Eq "REPRODUCED|^rank [0-9]+: WRONG"; then verdict="**reproduced**"
         elif printf '%s' "$out" | grep -q "not reproduced"; then verdict="fixed"
         elif err=$(printf '%s' "$out" | grep -Eo '\]: [A-Za-z]+Error: .{0,60}' | head -n1) && [ -n "$err" ]; then
           verdict="raises: ${err#]: }"   # torch refuses the input before the finding's step
         else verdict="setup (exit $rc)"; fi ;;
    esac
    printf ' | %s' "$verdict"
  done
  printf ' |\n'
done
