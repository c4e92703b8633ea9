#!/usr/bin/env bash
# tools/update_readme.sh SHARDCHECK — paste the output of `shardcheck policies` into README.md between
# the policies:begin/end markers (readme_policies.sh fails when they differ).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
S=${1:-$here/_build/tools/shardcheck}
tmp=$(mktemp)
"$S" policies >"$tmp"
python3 - "$here/README.md" "$tmp" <<'PY'
import sys, re
readme, table = sys.argv[1], open(sys.argv[2]).read()
s = open(readme).read()
block = "<!-- policies:begin -->\n```\n" + table + "```\n<!-- policies:end -->"
s = re.sub(r"<!-- policies:begin -->.*?<!-- policies:end -->", lambda m: block, s, flags=re.S)
open(readme, "w").write(s)
PY
rm -f "$tmp"
