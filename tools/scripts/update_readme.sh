#!/usr/bin/env bash
# tools/scripts/update_readme.sh [SHARDCHECK] — paste the generated tables into README.md between their
# markers: `shardcheck policies` (policies:begin/end) and `shardcheck families --markdown`
# (families:begin/end), then regenerate docs/families/ (conformance/tests/readme_tables.sh and
# family_docs.sh fail when they differ).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
S=${1:-$here/_build/tools/shardcheck}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$S" policies >"$tmp/policies"
"$S" families --markdown --golden "$here/golden" >"$tmp/families"
python3 - "$here/README.md" "$tmp" <<'PY'
import sys, re
readme, tmp = sys.argv[1], sys.argv[2]
s = open(readme).read()
blocks = {"policies": "```\n" + open(tmp + "/policies").read() + "```\n",
          "families": open(tmp + "/families").read()}
for name, body in blocks.items():
    block = "<!-- %s:begin -->\n%s<!-- %s:end -->" % (name, body, name)
    s = re.sub(r"<!-- %s:begin -->.*?<!-- %s:end -->" % (name, name), lambda m: block, s, flags=re.S)
open(readme, "w").write(s)
PY
# The per-family reference pages are generated from the same golden files (family_docs.sh checks).
py="${SHARDCHECK_PYTHON:-$here/.venv/bin/python}"; [ -x "$py" ] || py=python3
"$py" "$here/tools/scripts/gen_family_docs.py" >/dev/null
