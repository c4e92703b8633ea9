#!/usr/bin/env bash
# tools/invalid_audit.sh — audit every invalid golden case against each supported torch release
# (tools/harness/invalid_audit.py: the harness's torch adapter and the torch backend's code,
# every rejection located in torch's source, or excused by the flag StricterThanTorch /
# NotTorchInput) and write docs/invalid-audit.md.  A venv per release is reused, never made:
# $SHARDCHECK_VENVS/torch-X, /work/venvs/torch-X, or the repository's .venv for the one it
# holds (tools/torch_matrix.sh makes them).
#   bash tools/invalid_audit.sh [OUT]        (default docs/invalid-audit.md)
# Environment: AUDIT_RELEASES (default: every patch `shardcheck registry releases` prints),
# SHARDCHECK (default _build/tools/shardcheck: the binary asked, by the harness too).
# Exit: 0 the audit holds in every release, 1 a case breaks the rule (listed), 2 no venv.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$here/docs/invalid-audit.md}
venvs=${SHARDCHECK_VENVS:-$here/.venvs}
S=${SHARDCHECK:-$here/_build/tools/shardcheck}
[ -x "$S" ] || { echo "invalid_audit: no $S (build first, or set SHARDCHECK)" >&2; exit 2; }
export SHARDCHECK=$S
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
torch_of() { "$1/bin/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null; }
rc=0; jsons=()
for x in ${AUDIT_RELEASES:-$("$S" registry releases | cut -d" " -f2)}; do
  v=
  for d in "$venvs/torch-$x" "/work/venvs/torch-$x" "$here/.venv"; do
    [ -x "$d/bin/python" ] && [ "$(torch_of "$d")" = "$x" ] && { v=$d; break; }
  done
  [ -n "$v" ] || { echo "invalid_audit: no venv with torch $x (tools/torch_matrix.sh makes one)" >&2; exit 2; }
  echo "=== torch $x ($v)"
  (cd "$here/tools/harness" && "$v/bin/python" invalid_audit.py --check --json "$tmp/$x.json") \
    2> >(grep -v '^\[rank\|Warning\|warn' >&2) || rc=1
  jsons+=("$tmp/$x.json")
done
(cd "$here/tools/harness" && "$here/.venv/bin/python" invalid_audit.py --render "${jsons[@]}" --out "$out") || exit 2
echo "invalid_audit: wrote $out"
exit $rc
