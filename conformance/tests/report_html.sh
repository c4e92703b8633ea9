#!/bin/sh
# report_html.sh — `shardcheck report`: one self-contained HTML page from run/verify --json.  The
# matrix has a passing and a failing cell, the failure shows expected vs got, provenance names
# the golden MANIFEST hash; bad input (no --out, a malformed input, an unwritable --out) exits 2
# naming it.  When Debian's chromium is installed, the page is loaded headless: no console error,
# and the screenshot shows the matrix's green and red cells.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden threefry
need_python "to build a candidate"
"$SHARDCHECK" run --backend ref --golden "$G" --family threefry --json >"$tmp/run.json" 2>/dev/null
"$PY" - "$G/threefry/threefry.json" "$tmp/cand.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["testGroups"][0]["tests"][0]
t["expected"][sorted(t["expected"])[0]] = "ALTERED<&>"
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$SHARDCHECK" verify --family threefry --golden "$G" --candidate "$tmp/cand.json" --json >"$tmp/verify.json" 2>/dev/null
R() { "$SHARDCHECK" report --golden "$G" "$@"; }
expect_exit "report writes the page" 0 "report: 2 matrix cells, 1 failures" \
  R --out "$tmp/r.html" "$tmp/run.json" "$tmp/verify.json"
sum=$(sha256sum "$G/MANIFEST" | cut -d' ' -f1)
for want in "<td class=pass>40 passed" "<td class=fail>39 passed<br>1 failed" "verify verify.json" \
    "ref<br>ranks 1" "got &quot;ALTERED&lt;&amp;&gt;&quot;" "$sum"; do
  expect_file "the page holds: $want" "$tmp/r.html" "$want"
done
if grep -Eq '<script|src=|href=' "$tmp/r.html"; then tap_not_ok "self-contained: no script or external resource"
else tap_ok "self-contained: no script or external resource"; fi
expect_exit "--out is required" 2 "--out FILE.html is required" "$SHARDCHECK" report "$tmp/run.json"
expect_exit "no input is bad usage" 2 "no input" "$SHARDCHECK" report --out "$tmp/x.html"
echo '{"hello": 1}' >"$tmp/bad.json"
expect_exit "an input that is neither run nor verify output: exit 2 naming it" 2 \
  "input $tmp/bad.json: neither .shardcheck run --json. output" R --out "$tmp/x.html" "$tmp/bad.json"
expect_exit "an unwritable --out: exit 2 naming it" 2 \
  "report: --out $tmp/nodir/r.html: cannot write: No such file or directory" \
  R --out "$tmp/nodir/r.html" "$tmp/run.json"
expect_exit "a full disk: exit 2" 2 "report: --out /dev/full: cannot write" R --out /dev/full "$tmp/run.json"
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
  tap_skip "the page in headless chromium" "chromium not installed (Debian package chromium)"
else
  HOME="$tmp" timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --enable-logging=stderr --v=0 --window-size=1200,800 --screenshot="$tmp/shot.png" \
    "file://$tmp/r.html" >"$tmp/chrome.out" 2>&1
  if grep -E "CONSOLE|Uncaught" "$tmp/chrome.out" | grep -qiE "error|uncaught"; then
    tap_not_ok "chromium loads the page with no console error" "$(grep -E 'CONSOLE|Uncaught' "$tmp/chrome.out" | head -5)"
  else tap_ok "chromium loads the page with no console error"; fi
  if "$PY" - "$tmp/shot.png" <<'PYEOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), "unexpected PNG format"
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride, prev, colors = zlib.decompress(idat), w * bpp, None, set()
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        p = a + b - c
        pred = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
        line[i] = (line[i] + (0, a, b, (a + b) // 2, pred)[f]) & 255
    colors.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
    prev = line
assert bytes((0xd4, 0xf4, 0xd4)) in colors and bytes((0xf8, 0xd0, 0xd0)) in colors, "matrix colours missing"
PYEOF
  then tap_ok "the screenshot shows the matrix (green and red cells)"
  else tap_not_ok "the screenshot shows the matrix (green and red cells)" "$(tail -3 "$tmp/chrome.out")"; fi
fi
tap_done
