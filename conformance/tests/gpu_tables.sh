#!/bin/sh
# gpu_tables.sh — tools/gpu/rcp64h_table.py, the generator of lib/rng/cuda_rcp64h_table.h, from
# recordings rebuilt out of the committed table: their sha256 must be the H200's recordings'
# (named in the header), the generator must write the committed header byte for byte from them,
# and each property it checks before writing (file size, zero low words, equal binades, at most
# one unit above truncation, only in the top eighth of a unit) is refused, named, when broken.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_python "to run tools/gpu/rcp64h_table.py"
GEN=$top_srcdir/tools/gpu/rcp64h_table.py
HDR=$top_srcdir/lib/rng/cuda_rcp64h_table.h
GPU=$(sed -n '3s/^ \*   \(.*\);$/\1/p' "$HDR")

# recordings DIR [MUTATION]: the two raw binades the header describes, then one change
recordings() {
  "$PY" - "$HDR" "$1" "${2:-}" <<'PYEOF'
import os, re, struct, sys
hdr, out, mut = sys.argv[1], sys.argv[2], sys.argv[3]
N = 1 << 20
words = [int(w, 16) for w in re.findall(r"0x([0-9a-f]{16})u", open(hdr).read())]
lo, hi, k = [0x3ff00000], [0x3fe00000], 0
for i in range(1, N):
    q = (1 << 41) // (N + i) - N
    up = 0
    if 8 * ((1 << 41) % (N + i)) >= 7 * (N + i):
        up = words[k // 64] >> (k % 64) & 1
        k += 1
    lo.append(0x3fe00000 | (q + up))
    hi.append(0x3fd00000 | (q + up))
if mut == "lowword":
    lo[5] = 0xffffffff
elif mut == "binades":
    hi[77] += 1
elif mut == "two-up":
    lo[9] += 2; hi[9] += 2
elif mut == "low-up":   # fraction 2: 2^41/(2^20+2) lies 0.000004 of a unit above truncation
    lo[2] += 1; hi[2] += 1
os.makedirs(out, exist_ok=True)
for name, t in (("rcp64h_3ff00000.raw", lo), ("rcp64h_40000000.raw", hi)):
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack("<%dI" % N, *t))
if mut == "short":
    with open(os.path.join(out, "rcp64h_40000000.raw"), "r+b") as f:
        f.truncate(4 * N - 4)
PYEOF
}

recordings "$tmp/ok"
for b in 3ff00000 40000000; do
  want=$(sed -n "s/^ \*   rcp64h_$b.raw \([0-9a-f]*\)$/\1/p" "$HDR")
  got=$(sha256sum "$tmp/ok/rcp64h_$b.raw" | cut -d' ' -f1)
  if [ -n "$want" ] && [ "$got" = "$want" ]; then tap_ok "rcp64h_$b.raw rebuilt from the table is the H200's recording"
  else tap_not_ok "rcp64h_$b.raw rebuilt from the table is the H200's recording" "got $got" "want $want"; fi
done
if "$PY" "$GEN" "$tmp/ok" "$GPU" >"$tmp/hdr.h" 2>"$tmp/gen.err" && cmp -s "$tmp/hdr.h" "$HDR"; then
  tap_ok "rcp64h_table.py writes the committed header from those recordings"
else tap_not_ok "rcp64h_table.py writes the committed header" "$(head -c 300 "$tmp/gen.err")" \
  "$(diff "$tmp/hdr.h" "$HDR" | head -c 300)"; fi

refused() {   # DESC MUTATION MESSAGE
  recordings "$tmp/$2" "$2"
  expect_exit "refused: $1" 1 "$3" "$PY" "$GEN" "$tmp/$2" "$GPU"
}
refused "a short recording" short "rcp64h_40000000.raw: 4194300 bytes, want 4194304"
refused "a nonzero low word" lowword "input fraction 00005: a nonzero low word"
refused "binades that differ" binades "input fraction 0004d: binades differ \(3fefff66, 3fdfff67\)"
refused "two units above truncation" two-up "input fraction 00009: 2 units from truncation"
refused "one unit up below the top eighth" low-up "input fraction 00002: up outside the top eighth"
tap_done
