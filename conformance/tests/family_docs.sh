#!/bin/sh
# family_docs.sh — docs/families/*.md are generated from golden/ (schemas, notes, tests) by
# tools/scripts/gen_family_docs.py and never edited by hand: the committed pages must equal a fresh
# rendering; a stale page is reported naming it (exit 1); a schema field that nothing describes
# is an error naming family and field (exit 2).  Each page states what a conformance claim on
# its family covers, from the family record (shardcheck families --json): a page whose claim
# section disagrees with the record is stale.  Refresh with: python3 tools/scripts/gen_family_docs.py
. "$(dirname "$0")/testlib.sh"
GEN="$top_srcdir/tools/scripts/gen_family_docs.py"
use_tmpdir
need_python "to render the family pages"
# `families --json` reads the whole corpus (seconds, far more under ASan) and the generator asks
# it on every rendering: ask once here, and give the generator a shardcheck that answers that
# question from this answer (any other question, another corpus's too, goes to the real one).
"$SHARDCHECK" families --json --golden "$top_srcdir/golden" >"$tmp/families.json" 2>"$tmp/fj.err" ||
  tap_not_ok "shardcheck families --json" "$(head -c 300 "$tmp/fj.err")"
# The stale checks below render a corpus again; sampled (the ASan and distcheck make checks,
# testlib.sh) two files of rng-offsets, the page they edit, with the whole corpus's records
GS=$top_srcdir/golden
sampled && sample_corpus "$tmp/gs" rng-offsets:examples,invalid && GS=$tmp/gs
cat >"$tmp/sc" <<EOF
#!/bin/sh
[ "\$*" = "families --json --golden $top_srcdir/golden" ] && exec cat "$tmp/families.json"
[ "\$*" = "families --json --golden $GS" ] && exec cat "$tmp/families.json"
exec "$SHARDCHECK" "\$@"
EOF
chmod +x "$tmp/sc"
gen() { "$PY" "$GEN" --shardcheck "$tmp/sc" "$@"; }
expect_exit "docs/families is the rendering of golden/ (else run tools/scripts/gen_family_docs.py)" 0 \
  "pages up to date" gen --check --golden "$top_srcdir/golden" --out "$top_srcdir/docs/families"
expect_file "the rng-offsets page states its claim's required fields (the family record's)" \
  "$top_srcdir/docs/families/rng-offsets.md" \
  'Required fields (5): `shard_linear_index`, `start_incr`, `end_incr`, `first_shard_numel`, `local_numel`.'
gen --golden "$GS" --out "$tmp/pages" >/dev/null
cp -r "$tmp/pages" "$tmp/claim"
sed -i 's/Required fields (5): `shard_linear_index`, /Required fields (4): /' "$tmp/claim/rng-offsets.md"
expect_exit "a claim section that is not the record's is stale, named" 1 "stale: rng-offsets.md" \
  gen --check --golden "$GS" --out "$tmp/claim"
expect_exit "without a shardcheck to ask, the pages cannot say what a claim covers: exit 2" 2 \
  "--shardcheck $tmp/none: not an executable; the claims come from the family records" \
  "$PY" "$GEN" --shardcheck "$tmp/none" --check --golden "$GS" --out "$tmp/pages"
sed -i 's/ceil4(numel)/ceil(numel)/' "$tmp/pages/rng-offsets.md"
expect_exit "an edited page is stale, named" 1 "stale: rng-offsets.md; run python3 tools/scripts/gen_family_docs.py" \
  gen --check --golden "$GS" --out "$tmp/pages"
mkdir -p "$tmp/g/schemas" "$tmp/g/toy"
cat >"$tmp/g/schemas/toy_v1.json" <<'JSON'
{"description": "toy", "$defs": {
 "group": {"properties": {"mesh": {"type": "array", "items": {"type": "integer"}}, "tests": {}}},
 "test": {"properties": {"tcId": {}, "expected": {"type": "object", "properties": {
   "perRank": {"type": "object", "properties": {"mystery": {"type": "array"}}}}}}}}}
JSON
echo '{"numberOfTests": 0, "notes": {}, "testGroups": []}' >"$tmp/g/toy/a.json"
expect_exit "an input and a field nothing describes are an error naming both" 2 \
  "no description in the schema for: toy: input 'mesh'; toy: field 'mystery'" \
  gen --golden "$tmp/g" --out "$tmp/out"
tap_done
