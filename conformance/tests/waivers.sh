#!/bin/sh
# waivers.sh — known deviations (issue 22 item 6): `run --waivers FILE` reports a waived
# failure as Waived with its reason (never hidden, never a pass, not a failure), a waived case
# that passes as such, and refuses a waiver file that names nothing real.  The failure is
# made on purpose: a copy of the threefry corpus with one expected value changed (and its
# MANIFEST rewritten), which the ref backend then fails.
. "$(dirname "$0")/testlib.sh"
need_golden threefry
use_tmpdir
mkdir -p "$tmp/g/threefry" "$tmp/g/schemas"
cp "$G/schemas/threefry_v1.json" "$G/schemas/common.json" "$tmp/g/schemas/"
sed 's/"bits":\["f29a4fa7"\]}/"bits":["00000000"]}/' "$G/threefry/threefry.json" >"$tmp/g/threefry/threefry.json"
write_manifest "$tmp/g"
R() { "$S" run --backend ref --family threefry --golden "$tmp/g" "$@"; }
expect_exit "the altered case fails without waivers" 1 "^Fail +threefry tc 1[ :]" R
w() { printf '%s\n' "$1" >"$tmp/w.json"; }
w '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "planted for the test", "finding": "docs/findings/README.md"}]}'
expect_exit "a waived failure is Waived with its reason and finding, and the run passes" 0 \
  "^Waived +threefry tc 1( \(.*\))?: waived: planted for the test \(docs/findings/README.md\); Fail: rank 0: bits: expected" R --waivers "$tmp/w.json"
expect_exit "... counted apart: not a failure, not a pass" 0 "^39 passed, 0 failed, 0 skipped, 1 waived$" R --waivers "$tmp/w.json"
expect_exit "... TAP marks it TODO" 0 "^not ok [0-9]+ - threefry tc 1\b.*# TODO waived: planted" R --waivers "$tmp/w.json" --tap
expect_exit "... JSON counts it" 0 '"waived":1' R --waivers "$tmp/w.json" --json
w '{"waivers": [{"family": "threefry", "tcIds": [2], "reason": "fixed upstream since"}]}'
expect_exit "a waived case that passes says the waiver may be stale" 1 \
  "threefry tc 2\b.*: waived \(fixed upstream since\), but passed: the deviation may be fixed" R --waivers "$tmp/w.json" --verbose
expect_exit "... and the summary says so" 1 "1 failed, 0 skipped, 0 waived \(some waived cases passed: see above\)" R --waivers "$tmp/w.json"
w '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "only torch", "backends": ["torch"]}]}'
expect_exit "a waiver for another backend does not apply" 1 "^Fail +threefry tc 1[ :]" R --waivers "$tmp/w.json"
w '{"waivers": [{"family": "threefry", "flag": "EmptyTensor", "reason": "by flag"}, {"family": "threefry", "tcIds": [1], "reason": "x"}]}'
expect_exit "a waiver by flag and one by tcId together" 0 "1 waived" R --waivers "$tmp/w.json"
# bad waiver files: exit 2 naming the file, the waiver and what is wrong
bad() { w "$2"; expect_exit "bad waivers: $1" 2 "$3" R --waivers "$tmp/w.json"; }
bad "an unknown family" '{"waivers": [{"family": "nope", "tcIds": [1], "reason": "r"}]}' 'w.json: waivers\[0\]: "family" is not a family'
bad "a tcId the family lacks" '{"waivers": [{"family": "threefry", "tcIds": [99999], "reason": "r"}]}' 'waivers\[0\]: tcIds\[0\] is not a tcId of family threefry'
bad "an unknown flag" '{"waivers": [{"family": "threefry", "flag": "Nope", "reason": "r"}]}' 'waivers\[0\]: flag "Nope" is not one family threefry declares'
bad "no reason" '{"waivers": [{"family": "threefry", "tcIds": [1]}]}' 'waivers\[0\]: no "reason"'
bad "an empty reason" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": ""}]}' 'waivers\[0\]: "reason" must be a non-empty string'
bad "a case waived twice" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "a"}, {"family": "threefry", "tcIds": [3, 1], "reason": "b"}]}' 'waivers\[0\] and waivers\[1\] both waive threefry tcId 1'
bad "both tcIds and flag" '{"waivers": [{"family": "threefry", "tcIds": [1], "flag": "EmptyTensor", "reason": "r"}]}' 'by "tcIds" or by "flag" \(one of them\)'
bad "a misspelt member" '{"waivers": [{"family": "threefry", "tcids": [1], "reason": "r"}]}' 'unknown member "tcids"'
bad "an unknown backend" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r", "backends": ["gpu"]}]}' 'backends\[0\] is not a backend'
bad "an unknown release" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r", "torch": ["3.0"]}]}' 'waivers\[0\]: torch\[0\]'
bad "not a waiver file" '[1, 2]' 'not a waiver file'
# issue 38 M1: an entry that is not an object, or without a string "family", crashed run (SIGSEGV)
bad "an entry that is not an object (M1)" '{"waivers": [5]}' 'w.json: waivers\[0\]: not an object'
bad "the second entry not an object (M1)" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r"}, "x"]}' 'w.json: waivers\[1\]: not an object'
bad "no family (M1)" '{"waivers": [{"tcIds": [1], "reason": "r"}]}' 'waivers\[0\]: no "family": a non-empty string'
bad "a family that is not a string (M1)" '{"waivers": [{"family": 5, "tcIds": [1], "reason": "r"}]}' 'waivers\[0\]: "family" must be a non-empty string'
bad "a null family (M1)" '{"waivers": [{"family": null, "tcIds": [1], "reason": "r"}]}' 'waivers\[0\]: "family" must be a non-empty string'
# issue 38 M13: "torch" or "backends" of the wrong type silently disabled the waiver
bad "a release that is a number (M13)" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r", "torch": [2.13]}]}' 'waivers\[0\]: torch\[0\] must be a string naming a torch release'
bad "torch not an array (M13)" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r", "torch": "2.13"}]}' 'waivers\[0\]: "torch" must be a non-empty array of strings'
bad "backends not an array (M13)" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r", "backends": "ref"}]}' 'waivers\[0\]: "backends" must be a non-empty array of strings'
bad "a backend that is a number (M13)" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r", "backends": ["ref", 5]}]}' 'waivers\[0\]: backends\[1\] must be a string naming a backend'
bad "an empty backends (M13: it would apply nowhere)" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r", "backends": []}]}' 'waivers\[0\]: "backends" must be a non-empty array'
bad "a flag that is not a string" '{"waivers": [{"family": "threefry", "flag": ["EmptyTensor"], "reason": "r"}]}' 'waivers\[0\]: "flag" must be a non-empty string'
bad "tcIds not an array" '{"waivers": [{"family": "threefry", "tcIds": 1, "reason": "r"}]}' 'waivers\[0\]: "tcIds" must be a non-empty array'
bad "a finding that is not a string" '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "r", "finding": 3}]}' 'waivers\[0\]: "finding" must be a non-empty string'
# issue 32 item 5: "plugin" was refused by a message listing it as valid
w '{"waivers": [{"family": "threefry", "tcIds": [1], "reason": "any plugin", "backends": ["plugin", "candidate", "harness", "torch:gloo"]}]}'
expect_exit "backends plugin (every plugin), candidate, harness and a spelling are backends; a ref run ignores the waiver" 1 "^Fail +threefry tc 1[ :]" R --waivers "$tmp/w.json"
w '{"waivers": [{"family": "shard-layout", "tcIds": [1], "reason": "not in this corpus"}]}'
expect_exit "a waiver of a family the corpus lacks (run: NotSupported) waives nothing there" 1 \
  "^39 passed, 1 failed, 0 skipped, 0 waived$" R --waivers "$tmp/w.json"
# ... and a waiver for "plugin" applies to every plugin: the broken example's planted uneven-split
# bug (examples/plugin_broken.c), waived by its cause
PL="$top_builddir/examples/.libs/plugin_broken.so"
if [ -f "$PL" ]; then
  PR() { "$S" run --backend "plugin:$PL" --family shard-layout --golden "$G" --max-cases 100 "$@"; }
  expect_exit "the broken plugin fails uneven shards without waivers" 1 "^Fail +shard-layout tc 1593 .*localShape: expected \[2\], got \[3\]" PR
  w '{"waivers": [{"family": "shard-layout", "flag": "UnevenShard", "match": "^Fail: rank [0-9]+: localShape: expected", "reason": "planted off-by-one", "backends": ["plugin"]}]}'
  expect_exit "backends [\"plugin\"]: the plugin's failures of that cause are Waived" 0 "^26 passed, 0 failed, 66 skipped, 8 waived$" PR --waivers "$tmp/w.json"
else tap_skip "a waiver for plugin on a plugin run" "examples/plugin_broken.so not built (make check builds it)"; fi
# waivers by cause (issue 38): "match" waives a failure whose "Status: detail" matches
w '{"waivers": [{"family": "threefry", "match": "^Fail: rank 0: bits: expected", "reason": "by cause", "finding": "docs/findings/README.md"}]}'
expect_exit "a cause waiver (family and match) waives the failure it describes" 0 \
  "^Waived +threefry tc 1( \(.*\))?: waived: by cause \(docs/findings/README.md\); Fail: rank 0: bits" R --waivers "$tmp/w.json"
expect_exit "... not a pass, and the passes in its scope are not called stale" 0 "^39 passed, 0 failed, 0 skipped, 1 waived$" R --waivers "$tmp/w.json"
w '{"waivers": [{"family": "threefry", "match": "^Crash: ", "reason": "another cause"}]}'
expect_exit "a failure its pattern does not match stays a failure" 1 "^Fail +threefry tc 1[ :]" R --waivers "$tmp/w.json"
expect_exit "... and a cause waiver that waived nothing while its scope passed is noted" 1 \
  "note: .*w.json: waivers\[0\] matched no failure: the 39 cases of its scope that ran passed \(another cause\)" R --waivers "$tmp/w.json"
expect_exit "... in TAP as a comment" 1 "^# note: .*waivers\[0\] matched no failure" R --waivers "$tmp/w.json" --tap
w '{"waivers": [{"family": "threefry", "flag": "EmptyTensor", "match": "^Fail: ", "reason": "flag and cause"}]}'
expect_exit "a cause waiver scoped by a flag does not waive a case without it" 1 "^Fail +threefry tc 1[ :]" R --waivers "$tmp/w.json"
w '{"waivers": [{"family": "threefry", "tcIds": [1, 2], "match": "bits: expected", "reason": "listed, by cause"}]}'
expect_exit "tcIds with a match: the listed failure is waived" 0 "^Waived +threefry tc 1\b.*listed, by cause" R --waivers "$tmp/w.json" --verbose
expect_exit "... and a listed case that passes is reported stale" 0 "threefry tc 2\b.*waived \(listed, by cause\), but passed" R --waivers "$tmp/w.json" --verbose
w '{"waivers": [{"family": "threefry", "match": "^Fail: ", "reason": "first"}, {"family": "threefry", "tcIds": [1], "match": "bits", "reason": "second"}]}'
expect_exit "cause waivers may overlap: the first in the file that matches gives the reason" 0 "^Waived +threefry tc 1\b.*waived: first; " R --waivers "$tmp/w.json"
bad "a pattern that does not compile" '{"waivers": [{"family": "threefry", "match": "(", "reason": "r"}]}' 'waivers\[0\]: "match" is not a POSIX extended regular expression'
bad "a pattern that is not a string" '{"waivers": [{"family": "threefry", "match": 1, "reason": "r"}]}' 'waivers\[0\]: "match" must be a non-empty string'
bad "neither tcIds, flag nor match" '{"waivers": [{"family": "threefry", "reason": "r"}]}' 'waivers\[0\]: names its cases by "tcIds" or by "flag", or its failures by "match"'
# verify --waivers (issue 32 item 5): the same file, the same verdicts; a candidate is backend
# "candidate"
sed 's/"bits":\["f29a4fa7"\]}/"bits":["00000000"]}/' "$G/threefry/threefry.json" >"$tmp/cand.json"
V() { "$S" verify --family threefry --golden "$G" --candidate "$tmp/cand.json" "$@"; }
expect_exit "verify: the altered candidate fails without waivers" 1 "^Fail +tcId 1: bits" V
w '{"waivers": [{"family": "threefry", "match": "^Fail: bits: expected", "reason": "by cause", "finding": "docs/findings/README.md", "backends": ["candidate"]}]}'
expect_exit "verify --waivers: the failure is Waived with its reason, not a pass" 0 \
  "^Waived +tcId 1: waived: by cause \(docs/findings/README.md\); Fail: bits: expected" V --waivers "$tmp/w.json"
expect_exit "... counted apart" 0 "^39 passed, 0 failed, 0 skipped, 1 waived$" V --waivers "$tmp/w.json"
expect_exit "... JSON: the case is Waived with its reason" 0 '"status": ?"Waived", ?"detail": ?"waived: by cause' V --waivers "$tmp/w.json" --json
w '{"waivers": [{"family": "threefry", "match": "^Fail: bits", "reason": "run only", "backends": ["ref"]}]}'
expect_exit "verify: a waiver for a run backend does not apply to a candidate" 1 "^Fail +tcId 1: bits" V --waivers "$tmp/w.json"
w '{"waivers": [{"family": "threefry", "tcIds": [2], "reason": "fixed since"}]}'
expect_exit "verify: a waived case that passes is reported" 1 "tcId 2: waived \(fixed since\), but passed" V --waivers "$tmp/w.json" --verbose
w '{"waivers": [5]}'
expect_exit "verify: a bad waiver file is exit 2 naming the entry" 2 "w.json: waivers\[0\]: not an object" V --waivers "$tmp/w.json"
expect_exit "verify: --junit naming the waivers file is refused" 2 "junit" V --waivers "$tmp/w.json" --junit "$tmp/w.json"
# certify --waivers (issue 32 item 5): the package carries the file, every row is judged with
# it, the statement lists each waived case with its reason, --check re-verifies with it
w '{"waivers": [{"family": "threefry", "match": "^Fail: (rank 0: )?bits: expected", "reason": "by cause", "finding": "docs/findings/README.md"}]}'
C() { "$S" certify --golden "$G" --candidate "threefry=$tmp/cand.json" "$@"; }
expect_exit "certify without waivers: the altered candidate is NONCONFORMANT" 1 "verdict: NONCONFORMANT" C --out "$tmp/p0"
expect_exit "certify --waivers: the waived failure does not fail the package" 0 "verdict: CONFORMANT" C --out "$tmp/p1" --waivers "$tmp/w.json"
expect_file "... the package carries the waivers file" "$tmp/p1/waivers.json" '"reason": "by cause"'
expect_file "... statement.txt lists the waived case with its reason (not a pass)" "$tmp/p1/statement.txt" \
  'threefry (verify candidate) tcId 1: Waived: waived: by cause (docs/findings/README.md); Fail: bits: expected'
expect_file "... statement.txt counts it apart" "$tmp/p1/statement.txt" "Waived (known deviations in waivers.json: 1 case; counted neither passed nor failed)"
expect_file "... statement.json names the package's waivers file" "$tmp/p1/statement.json" '"waivers": "waivers.json"'
expect_file "... report.html shows the case as Waived with its reason" "$tmp/p1/report.html" "waived: by cause"
expect_exit "certify --check: intact, re-verified with the package's waivers" 0 "intact: .*verdict: conformant" "$S" certify --check "$tmp/p1" --golden "$G"
rm -rf "$tmp/alt"; cp -r "$tmp/p1" "$tmp/alt"
sed -i 's/bits: expected/no such failure/' "$tmp/alt/waivers.json"; write_manifest "$tmp/alt"
expect_exit "certify --check: a waivers file edited (MANIFEST rewritten) no longer gives the row" 1 \
  "alt/inputs/threefry.candidate.json: inconsistent with the statement" "$S" certify --check "$tmp/alt" --golden "$G"
rm -rf "$tmp/alt"; cp -r "$tmp/p1" "$tmp/alt"; rm "$tmp/alt/waivers.json"; write_manifest "$tmp/alt"
expect_exit "certify --check: the waivers file removed (MANIFEST rewritten): exit 1 naming it" 1 \
  "alt/waivers.json: missing" "$S" certify --check "$tmp/alt" --golden "$G"
expect_exit "... and the candidate no longer verifies without it" 1 \
  "alt/inputs/threefry.candidate.json: no longer verifies" "$S" certify --check "$tmp/alt" --golden "$G"
rm -rf "$tmp/alt"; cp -r "$tmp/p1" "$tmp/alt"
sed -i 's|"waivers": "waivers.json"|"waivers": "../w.json"|' "$tmp/alt/statement.json"; write_manifest "$tmp/alt"
expect_exit "certify --check: a statement citing a waivers file outside the package: exit 1" 1 \
  "altered: \"waivers\" is not the package's waivers.json" "$S" certify --check "$tmp/alt" --golden "$G"
expect_exit "certify --check --waivers: refused (the package's own are used)" 2 "waivers" "$S" certify --check "$tmp/p1" --golden "$G" --waivers "$tmp/w.json"
expect_exit "certify: a backend row is judged with the waivers too (Waived in a run row)" 0 \
  "threefry \(run ref, np 1\) tc 1: Waived: waived: by cause" "$S" certify --golden "$tmp/g" --families threefry --out "$tmp/p2" --waivers "$tmp/w.json"
w '{"waivers": [{"family": "threefry", "tcIds": [2], "reason": "fixed since"}]}'
expect_exit "certify: a waived case that passed is listed, and the failure fails" 1 \
  "threefry \(verify candidate\) tcId 2: Pass: waived \(fixed since\), but passed" C --out "$tmp/p3" --waivers "$tmp/w.json"
w '{"waivers": [5]}'
expect_exit "certify: a bad waivers file is exit 2 before any row runs" 2 "w.json: waivers\[0\]: not an object" C --out "$tmp/p4" --waivers "$tmp/w.json"
[ ! -e "$tmp/p4" ] && tap_ok "... and no package is started" || tap_not_ok "... and no package is started"
# issue 38 M7: each waiver loaded its family's whole corpus again (20 waivers on shard-layout:
# 14 s CPU and 304 MB before; each family is now scanned once, about 0.1 s and 25 MB)
if [ -x /usr/bin/time ] && [ "${SHARDCHECK_SANITIZED:-0}" != 1 ] && "$PY" -c 'import json' 2>/dev/null; then
  "$PY" -c 'import json,sys; json.dump({"waivers": [{"family": "shard-layout", "tcIds": [i], "reason": "r%d" % i, "backends": ["torch"]} for i in range(1, 21)]}, sys.stdout)' >"$tmp/w20.json"
  /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$S" run --backend ref --family threefry --golden "$G" --waivers "$tmp/w20.json" >/dev/null 2>&1
  read -r u s m <"$tmp/time"
  if awk -v u="$u" -v s="$s" -v m="$m" 'BEGIN { exit !(u + s < 3 && m < 150000) }'; then
    tap_ok "20 waivers on shard-layout load it once: ${u}+${s} s CPU, $m KB peak (bounds 3 s, 150 MB)"
  else tap_not_ok "20 waivers on shard-layout load it once" "${u}+${s} s CPU, $m KB peak (bounds 3 s, 150 MB)"; fi
else tap_skip "the cost of 20 waivers" "no /usr/bin/time, a sanitized build or no python"; fi
expect_exit "the shipped waivers/torch.json names real cases of the corpus (and a ref run ignores it)" 0 \
  "^40 passed, 0 failed, 0 skipped, 0 waived$" "$S" run --backend ref --family threefry --golden "$G" \
  --waivers "$top_srcdir/waivers/torch.json"
expect_exit "a missing waiver file is exit 2 naming it" 2 "nonexistent.json" R --waivers "$tmp/nonexistent.json"
tap_done
