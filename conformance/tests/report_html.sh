#!/bin/sh
# report_html.sh — `shardcheck report`: one self-contained HTML page from run/verify --json.  The
# matrix has a passing and a failing cell, the failure shows expected vs got, provenance names
# the golden MANIFEST hash; bad input (no --out, a malformed input, an unwritable --out) exits 2
# naming it.  A page a person reads (issue 22 item 5): it opens with the verdict and the
# statement, then the failure groups (each group's smallest case with its inputs and an inline
# picture), NotSupported grouped by reason with counts (one row per reason, not per case), the
# long lists folded in <details>.  When Debian's chromium is installed (tools/setup.sh
# --browser), the page is loaded headless: no console error; the DOM chromium builds
# (--dump-dom) is checked element by element (the verdict first, the sections in order, groups
# with pictures, NotSupported grouped, details closed); screenshots show the red verdict and the
# picture's shard colours at the top of a failing report, the green verdict of a passing one.
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
# a shard-layout port: one UnevenShard case wrong on rank 0, 5 + 3 cases NotSupported for two reasons
"$PY" "$tests_dir/golden_results.py" "$G" shard-layout "$tmp/sl.json"
"$PY" - "$G" "$tmp/sl.json" <<'PYEOF'
import json, sys
golden, path = sys.argv[1:3]
doc = json.load(open(path))
tests = {}
for g in json.load(open(golden + "/shard-layout/chunk-sweep-1d.json"))["testGroups"]:
    for t in g["tests"]:
        tests[t["tcId"]] = t
bad = min(tc for tc, t in tests.items() if t["flags"] == ["UnevenShard"] and t["result"] == "valid"
          and len(t["expected"]["perRank"]["localShape"]) > 1)
ns = sorted(tc for tc, t in tests.items() if t["result"] == "valid" and tc != bad)[:8]
out = []
for e in doc["results"]:
    if e["tcId"] in ns:
        if e.get("rank", 0) == 0:
            out.append({"tcId": e["tcId"], "notSupported": "no rank maps yet" if ns.index(e["tcId"]) < 5
                        else "no _StridedShard yet"})
        continue
    if e["tcId"] == bad and e.get("rank") == 0:
        e["values"]["localShape"] = [s + 1 for s in e["values"]["localShape"]]
    out.append(e)
doc["results"] = out
json.dump(doc, open(path, "w"))
PYEOF
"$SHARDCHECK" verify --family shard-layout --golden "$G" --candidate "$tmp/sl.json" --json >"$tmp/vsl.json" 2>/dev/null
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
# the page a person reads: a shard-layout port's verify (groups, pictures, NotSupported) first
expect_exit "report over a port's results: the page" 0 "report: 3 matrix cells, 2 failures" \
  R --out "$tmp/p.html" "$tmp/vsl.json" "$tmp/run.json" "$tmp/verify.json"
expect_exit "report over passing results only" 0 "report: 1 matrix cells, 0 failures" \
  R --out "$tmp/ok.html" "$tmp/run.json"
# Page checks, on the HTML as written and on the DOM chromium builds from it.
cat >"$tmp/dom.py" <<'PYEOF'
import html.parser, re, sys

class Tree(html.parser.HTMLParser):
    """Elements in document order: (tag, attrs, text inside, index of the parent)."""
    VOID = {"meta", "br", "rect", "line", "img", "input", "hr"}
    def __init__(self):
        super().__init__()
        self.els, self.stack = [], []
    def handle_starttag(self, tag, attrs):
        self.els.append([tag, dict(attrs), "", self.stack[-1] if self.stack else -1])
        if tag not in self.VOID:
            self.stack.append(len(self.els) - 1)
    def handle_startendtag(self, tag, attrs):
        self.els.append([tag, dict(attrs), "", self.stack[-1] if self.stack else -1])
    def handle_endtag(self, tag):
        if tag in self.VOID or not any(self.els[i][0] == tag for i in self.stack):
            return  # chromium closes svg's rect and line: </rect>
        while self.stack:
            if self.els[self.stack.pop()][0] == tag:
                break
    def handle_data(self, d):
        for i in self.stack:
            self.els[i][2] += d

def inside(t, i, j):
    while j >= 0:
        if j == i:
            return True
        j = t.els[j][3]
    return False

t = Tree()
t.feed(open(sys.argv[1], encoding="utf-8").read())
E = t.els
first = lambda pred: next((i for i, e in enumerate(E) if pred(e)), None)
sec = {e[1].get("id"): i for i, e in enumerate(E) if e[0] in ("section", "details") and e[1].get("id")}
h1 = first(lambda e: e[0] == "h1")
after = first(lambda e: e[0] not in ("h1",) and e[3] == E[h1][3] and E.index(e) > h1)
assert after == sec.get("verdict"), "the first thing after the title is not the verdict: %s" % E[after][:2]
assert re.match(r"\s*Verdict: FAILED", E[sec["verdict"]][2]), E[sec["verdict"]][2][:80]
order = [sec.get(k) for k in ("verdict", "statement", "groups", "notsupported")]
matrix = first(lambda e: e[0] == "table" and e[1].get("class") == "matrix")
assert None not in order and order == sorted(order) and order[-1] < matrix < sec["failures"], order
st = E[sec["statement"]][2]
for want in ("implementation", "judged against", "torch 2.13", "shard-layout, threefry", "rank counts"):
    assert want in st, "statement lacks %r: %s" % (want, st[:300])
groups = [i for i, e in enumerate(E) if e[0] == "div" and e[1].get("class") == "group"
          and inside(t, sec["groups"], i)]
assert len(groups) >= 3, "%d failure groups" % len(groups)
g0 = E[groups[0]][2]
assert re.search(r"UnevenShard \d+ of \d+ failing tests", g0), g0[:200]
assert "torch.chunk" in g0, "the flag's note is not shown"
pics = [i for i in groups if any(e[0] == "svg" and inside(t, i, j) for j, e in enumerate(E))]
assert groups[0] in pics, "the first group has no picture"
rects = sum(1 for j, e in enumerate(E) if e[0] == "rect" and inside(t, groups[0], j))
assert rects > 4, "the picture has %d rects" % rects
inputs = [e[2] for j, e in enumerate(E) if e[0] == "table" and e[1].get("class") == "inputs"
          and inside(t, groups[0], j)]
assert inputs and all(k in inputs[0] for k in ("mesh", "placements", "shape")), inputs
trs = [j for j, e in enumerate(E) if e[0] == "tr" and inside(t, sec["notsupported"], j)]
rows = [[e[2] for e in E if e[0] == "td" and e[3] == j] for j in trs[1:]]
assert sorted((r[3], int(r[4])) for r in rows) == [("no _StridedShard yet", 3), ("no rank maps yet", 5)], \
    "NotSupported rows: %s" % rows
dets = [e for e in E if e[0] == "details"]
assert len(dets) >= 3 and not any("open" in e[1] for e in dets), "details: %s" % [e[1] for e in dets]
print("ok")
PYEOF
expect_out "the page as written: verdict first, sections in order, groups with pictures, NotSupported grouped" \
  "ok" "$PY" "$tmp/dom.py" "$tmp/p.html"
expect_file "NotSupported cases are not one row each" "$tmp/p.html" '<td class=num>5</td>'
if grep -q '<td>NotSupported</td>' "$tmp/p.html"; then tap_not_ok "no NotSupported row per case"
else tap_ok "no NotSupported row per case"; fi
expect_file "a passing report's verdict" "$tmp/ok.html" '<section id=verdict class="verdict pass"><h2>Verdict: PASSED</h2>'
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
shot() { # PAGE PNG HEIGHT: a screenshot of the page's top, 1200 wide
  HOME="$tmp" timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --enable-logging=stderr --v=0 --window-size=1200,"$3" --screenshot="$2" "file://$1" >"$tmp/chrome.out" 2>&1
}
cat >"$tmp/png.py" <<'PYEOF'
import struct, sys, zlib
def colours(path):
    data = open(path, "rb").read()
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
    raw, stride, prev, seen = zlib.decompress(idat), w * bpp, None, set()
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i] if prev else 0
            c = prev[i - bpp] if prev and i >= bpp else 0
            p = a + b - c
            pred = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
            line[i] = (line[i] + (0, a, b, (a + b) // 2, pred)[f]) & 255
        seen.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return seen
seen = colours(sys.argv[1])
for want in sys.argv[2:]:
    assert bytes.fromhex(want) in seen, "colour #%s missing" % want
print("ok")
PYEOF
if [ -z "$chrome" ]; then
  tap_skip "the page in headless chromium" "chromium not installed (tools/setup.sh --browser: Debian package chromium)"
else
  shot "$tmp/p.html" "$tmp/shot.png" 1400
  if grep -E "CONSOLE|Uncaught" "$tmp/chrome.out" | grep -qiE "error|uncaught"; then
    tap_not_ok "chromium loads the page with no console error" "$(grep -E 'CONSOLE|Uncaught' "$tmp/chrome.out" | head -5)"
  else tap_ok "chromium loads the page with no console error"; fi
  # the verdict's red and the first group's picture (the shard palette's first two colours)
  expect_out "the screenshot's top: the red verdict and the first group's picture" "ok" \
    "$PY" "$tmp/png.py" "$tmp/shot.png" f8d0d0 4e79a7 f28e2b
  shot "$tmp/ok.html" "$tmp/ok.png" 400
  expect_out "a passing report's screenshot: the green verdict" "ok" "$PY" "$tmp/png.py" "$tmp/ok.png" d4f4d4
  if "$PY" "$tmp/png.py" "$tmp/ok.png" f8d0d0 >/dev/null 2>&1; then
    tap_not_ok "a passing report's screenshot has no red"
  else tap_ok "a passing report's screenshot has no red"; fi
  HOME="$tmp" timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --dump-dom \
    "file://$tmp/p.html" >"$tmp/dom.html" 2>"$tmp/chrome.err"
  expect_out "chromium's DOM: verdict first, sections in order, groups with pictures, NotSupported grouped" \
    "ok" "$PY" "$tmp/dom.py" "$tmp/dom.html"
fi
tap_done
