#!/bin/sh
# golden_regen.sh — golden/ is exactly what the generator writes: regenerate every family into a
# scratch directory and demand byte-identical files; check MANIFEST and each file's structure;
# and show that a tampered, truncated or unlisted golden file is caught with a message naming it.
. "$(dirname "$0")/testlib.sh"
use_tmpdir

# The schemas are written by hand, not generated; MANIFEST covers them, so they sit beside the output.
mkdir -p "$tmp/gen" && cp -r "$G/schemas" "$tmp/gen/schemas"
# A sampled make check (the ASan+UBSan build's, distcheck's) leaves torch-cuda-rng out: under
# the sanitizers its generator takes about 65 s of CPU against 1.7 s (every element's libdevice
# log and sincospi through checked code; issue 36: CI time); it starts from the committed files
# and MANIFEST, and `gen --family` rewrites the others (their MANIFEST lines with them), so the
# MANIFEST check below still covers every family the run regenerated.  redistribute-plan too:
# check_release_rows (a Check program, sampled or not) generates it whole in every make check,
# with one release more, and compares it with the committed files (20 s of CPU under ASan).
heavy="torch-cuda-rng redistribute-plan"
is_heavy() { case " $heavy " in *" $1 "*) return 0 ;; esac; return 1; }
if sampled; then
  for fam in $heavy; do cp -r "$G/$fam" "$tmp/gen/"; done
  cp "$G/MANIFEST" "$tmp/gen/" && chmod -R u+w "$tmp/gen"
  genok=1
  for fam in $("$SHARDCHECK" gen --list | awk '{print $1}'); do
    is_heavy "$fam" && continue
    "$SHARDCHECK" gen --family "$fam" --out "$tmp/gen" --quiet >>"$tmp/gen.out" 2>&1 || genok=0
  done
  [ $genok = 1 ] && tap_ok "gen --family writes every family but $heavy (sampled run)" \
    || tap_not_ok "gen --family writes every family but $heavy" "$(head -c 600 "$tmp/gen.out")"
elif "$SHARDCHECK" gen --out "$tmp/gen" --quiet >"$tmp/gen.out" 2>&1; then tap_ok "gen writes every family"
else tap_not_ok "gen writes every family" "$(head -c 600 "$tmp/gen.out")"; fi
for fam in $("$SHARDCHECK" gen --list | awk '{print $1}'); do
  if [ ! -d "$G/$fam" ]; then tap_not_ok "golden/$fam is committed" "missing: run shardcheck gen"; continue; fi
  if sampled && is_heavy "$fam"; then
    tap_skip "golden/$fam regenerates byte-identical" "sampled run: the plain build's make check regenerates it"
    continue
  fi
  if diff -r "$tmp/gen/$fam" "$G/$fam" >"$tmp/diff" 2>&1; then tap_ok "golden/$fam regenerates byte-identical"
  else tap_not_ok "golden/$fam regenerates byte-identical" "$(head -c 600 "$tmp/diff")"; fi
done
for d in "$G"/*/; do
  fam=$(basename "$d"); [ "$fam" = schemas ] && continue
  [ -d "$tmp/gen/$fam" ] || tap_not_ok "golden/$fam belongs to a registered family"
  [ -f "$G/schemas/${fam}_v1.json" ] && tap_ok "golden/schemas/${fam}_v1.json exists" \
    || tap_not_ok "golden/schemas/${fam}_v1.json exists"
done
if cmp -s "$tmp/gen/MANIFEST" "$G/MANIFEST"; then tap_ok "MANIFEST regenerates byte-identical"
else tap_not_ok "MANIFEST regenerates byte-identical"; fi
expect_exit "verify --manifest accepts golden/" 0 "MANIFEST ok" "$SHARDCHECK" verify --manifest --golden "$G"

# Tampering, on a copy.
cp -r "$G" "$tmp/t"; chmod -R u+w "$tmp/t"
f=$(cd "$tmp/t" && ls */*.json | head -n1)
sed -i '0,/"tcId":/s//"tcId": /' "$tmp/t/$f"
expect_exit "a changed byte fails MANIFEST, naming the file" 2 "$f has sha256" \
  "$SHARDCHECK" verify --manifest --golden "$tmp/t"
cp "$G/$f" "$tmp/t/$f"; echo '{}' >"$tmp/t/${f%/*}/zz-extra.json"
expect_exit "an unlisted file fails MANIFEST" 2 "zz-extra.json is not listed" \
  "$SHARDCHECK" verify --manifest --golden "$tmp/t"
rm -f "$tmp/t/${f%/*}/zz-extra.json"
head -c 300 "$G/$f" >"$tmp/t/$f"
"$SHARDCHECK" gen --help >/dev/null
fam=${f%%/*}
expect_exit "verify --family checks MANIFEST before trusting a golden file" 2 "$f has sha256" \
  "$SHARDCHECK" verify --family "$fam" --candidate "$G/$f" --golden "$tmp/t"
grep -v "  $f\$" "$G/MANIFEST" >"$tmp/t/MANIFEST"; cp "$G/$f" "$tmp/t/$f"
expect_exit "verify --family: a golden file MANIFEST does not list is refused" 2 "$f is not listed" \
  "$SHARDCHECK" verify --family "$fam" --candidate "$G/$f" --golden "$tmp/t"
cp "$G/MANIFEST" "$tmp/t/MANIFEST"
printf ' ' >>"$tmp/t/schemas/${fam}_v1.json"
expect_exit "MANIFEST covers golden/schemas: a changed schema is caught" 2 "schemas/${fam}_v1.json has sha256" \
  "$SHARDCHECK" verify --manifest --golden "$tmp/t"
expect_exit "verify --family checks its schema against MANIFEST" 2 "schemas/${fam}_v1.json has sha256" \
  "$SHARDCHECK" verify --family "$fam" --candidate "$G/$f" --golden "$tmp/t"
cp "$G/schemas/${fam}_v1.json" "$tmp/t/schemas/${fam}_v1.json"
# common.json (the definitions every family schema refers to) is in every family's scope
printf ' ' >>"$tmp/t/schemas/common.json"
expect_exit "verify --family checks schemas/common.json against MANIFEST" 2 \
  "schemas/common.json has sha256" \
  "$SHARDCHECK" verify --family "$fam" --candidate "$G/$f" --golden "$tmp/t"
mkdir -p "$tmp/gp" && cp -r "$G/philox-kat" "$G/MANIFEST" "$tmp/t/schemas" "$tmp/gp/" &&
  chmod -R u+w "$tmp/gp"
"$SHARDCHECK" gen --family philox-kat --out "$tmp/gp" --quiet >/dev/null 2>&1
h=$(sha256sum "$tmp/gp/schemas/common.json" | cut -c1-64)
grep -q "^$h  schemas/common.json\$" "$tmp/gp/MANIFEST" &&
  tap_ok "gen --family rehashes schemas/common.json" ||
  tap_not_ok "gen --family rehashes schemas/common.json" "$(grep common "$tmp/gp/MANIFEST")"
cp "$G/schemas/common.json" "$tmp/t/schemas/common.json"
printf 'not a manifest\n' >"$tmp/t/MANIFEST"
expect_exit "a malformed MANIFEST line is rejected" 2 "MANIFEST line 1: expected" \
  "$SHARDCHECK" verify --manifest --golden "$tmp/t"
expect_exit "gen rejects an unknown family" 2 "unknown family 'nope'" "$SHARDCHECK" gen --family nope --out "$tmp/x"
tap_done
