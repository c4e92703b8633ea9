#!/bin/sh
# verify_fast.sh — verify's scanned path (json_scan.c, golden_index.c: no jansson trees) gives
# byte for byte the output, exit code and messages of the jansson tree path
# (SHARDCHECK_VERIFY_TREES=1) on every candidate form verify meets: golden-shaped (compact,
# pretty, keys reordered, values altered, tests missing, unknown, repeated or malformed),
# results files, and inputs the scanner must read exactly as jansson does (escapes, non-ASCII
# and invalid UTF-8, numbers split by whitespace, integers and reals at and past what jansson
# reads, repeated keys anywhere, escaped keys, deep nesting, a NUL byte, truncated or trailing
# bytes), against clean and tampered golden families (an escape or a non-ASCII byte in a golden
# file, a syntax error, an undeclared flag, a repeated tcId or key).
# Results files (r-*.json) too: reordered, whole-test and per-rank answers, and every way an entry
# is refused (exit 2 with the entry named) or a test is answered twice, missing a rank, unknown.
. "$(dirname "$0")/testlib.sh"
fam=shard-layout
use_tmpdir
need_golden $fam
need_python "to build candidates"

"$PY" - "$G" "$tmp" <<'PYEOF'
import copy, glob, json, os, re, shutil, sys
G, out = sys.argv[1], sys.argv[2]
fam = "shard-layout"
src = [os.path.join(G, fam, f) for f in ("invalid.json", "rank-maps-explicit.json", "shard-order.json")]
docs = [json.load(open(p)) for p in src]
raws = [open(p).read() for p in src]

def golden(name, texts):
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, fam))
    shutil.copytree(os.path.join(G, "schemas"), os.path.join(d, "schemas"))
    for p, t in zip(src, texts):
        open(os.path.join(d, fam, os.path.basename(p)), "w").write(t)
golden("g-clean", raws)
golden("g-escape", [raws[0], raws[1].replace('"comment":"', '"comment":"\\u00e9', 2), raws[2]])
golden("g-syntax", [raws[0], raws[1][:-200], raws[2]])
golden("g-flag", [raws[0], raws[1].replace('"flags":[', '"flags":["NotDeclared",', 1), raws[2]])
dup = docs[2]["testGroups"][0]["tests"][0]["tcId"]
golden("g-dup", [raws[0], raws[1].replace('"tcId":', '"tcId":%d,"x":' % dup, 1), raws[2]])
golden("g-dupkey", [raws[0], raws[1].replace('"comment":', '"comment":"x","comment":', 1), raws[2]])
golden("g-utf8", [raws[0], raws[1].replace('"comment":"', '"comment":"\u00e9\\u00e9', 2), raws[2]])

os.makedirs(os.path.join(out, "c"))
def W(name, obj=None, raw=None):
    if isinstance(raw, bytes):
        open(os.path.join(out, "c", name + ".json"), "wb").write(raw); return
    with open(os.path.join(out, "c", name + ".json"), "w") as f:
        f.write(raw if raw is not None else json.dumps(obj, separators=(",", ":")))
m = copy.deepcopy(docs[0]); m["testGroups"] = [g for d in docs for g in d["testGroups"]]
m["numberOfTests"] = sum(len(g["tests"]) for g in m["testGroups"])
W("all", m)
with open(os.path.join(out, "c", "pretty.json"), "w") as f: json.dump(m, f, indent=2)
alt, ro, n = copy.deepcopy(m), copy.deepcopy(m), 0
for g in alt["testGroups"]:
    for t in g["tests"]:
        n += 1; e = t["expected"]
        if n % 7 == 0 and "perRank" in e: k = sorted(e["perRank"])[0]; e["perRank"][k][-1] = "X"
        if n % 11 == 0: e["extra"] = 1
        if n % 13 == 0: t["result"] = "invalid"
        if n % 17 == 0: t["expected"] = "notobj"
        if n % 19 == 0: del t["expected"]
        if n % 23 == 0 and "perRank" in e: k = sorted(e["perRank"])[0]; e["perRank"][k] = e["perRank"][k][:-1]
W("altered", alt)
for g in ro["testGroups"]:
    for t in g["tests"]: t["expected"] = dict(reversed(list(t["expected"].items())))
W("reordered", ro)
one = docs[1]
def V(name, f):
    u = copy.deepcopy(one); f(u); W(name, u)
V("missing", lambda u: u["testGroups"][0].update(tests=u["testGroups"][0]["tests"][3:]))
V("unknown", lambda u: u["testGroups"][0]["tests"][1].update(tcId=99999999))
V("twice", lambda u: u["testGroups"][0]["tests"][2].update(tcId=u["testGroups"][0]["tests"][1]["tcId"]))
V("string-id", lambda u: u["testGroups"][0]["tests"][2].update(tcId="5"))
V("real-id", lambda u: u["testGroups"][0]["tests"][2].update(tcId=2.0))
V("not-object", lambda u: u["testGroups"][0]["tests"].__setitem__(2, 7))
V("group-not-object", lambda u: u["testGroups"].__setitem__(0, 5))
V("family", lambda u: u.update(family="group-ranks"))
V("fields", lambda u: u.update(fields=["localShape"]))
raw = json.dumps(one, separators=(",", ":"))
for name, text in [
        ("truncated", raw[:len(raw) // 2]), ("trailing", raw + " x"), ("comma", raw.replace("]}", "],}", 1)),
        ("non-ascii", raw.replace('"comment":"', '"comment":"\u00e9', 3)),
        ("u-escape", raw.replace('"comment":"', '"comment":"\\u00e9\\ud83d\\ude00', 3)),
        ("lone-surrogate", raw.replace('"comment":"', '"comment":"\\ud83d', 1)),
        ("nul-escape", raw.replace('"comment":"', '"comment":"\\u0000', 1)),
        ("escapes", raw.replace('"comment":"', '"comment":"a\\"\\\\\\/\\b\\f\\n\\r\\t', 3)),
        ("control", raw.replace('"comment":"', '"comment":"\t', 1)),
        ("repeated-tcid-key", raw.replace('"tcId":', '"tcId":1,"tcId":', 3)),
        ("repeated-expected", raw.replace('"expected":', '"expected":{},"expected":', 5)),
        ("int64-max", raw.replace('"tcId":', '"x":9223372036854775807,"y":-9223372036854775808,"tcId":', 2)),
        ("int-overflow", raw.replace('"tcId":', '"x":9223372036854775808,"tcId":', 1)),
        ("real-overflow", raw.replace('"tcId":', '"x":1e999,"tcId":', 1)),
        ("reals", raw.replace('"tcId":', '"x":-1.5e-3,"y":0.25,"tcId":', 2)),
        ("leading-zero", raw.replace('"tcId":', '"x":01,"tcId":', 1)),
        ("deep", raw.replace('"tcId":', '"x":' + "[" * 3000 + "]" * 3000 + ',"tcId":', 1)),
        ("deep-ok", raw.replace('"tcId":', '"x":' + "[" * 1500 + "]" * 1500 + ',"tcId":', 1)),
        ("result-escape", raw.replace('"result":"valid"', '"result":"vali\\u0064"', 2)),
        ("family-escape", raw.replace('"family":"shard-layout"', '"family":"shard\\u002dlayout"', 1)),
        ("top-array", "[1,2]"), ("empty", ""), ("whitespace", "  \n{" + raw[1:] + "\n\t ")] + [
        # issue 27: split tokens, overflowing reals, repeated keys, a NUL byte jansson drops
        ("split-number", raw.replace('"localShape":[[', '"localShape":[[1 ', 1)),
        ("split-literal", raw.replace('"tcId":', '"x":tr ue,"tcId":', 1)),
        ("real-overflow-long", raw.replace('"tcId":', '"x":1' + "0" * 250 + 'e99,"tcId":', 1)),
        ("real-boundary", raw.replace('"tcId":', '"x":1.7976931348623158e308,"y":-1.7976931348623159e308,"tcId":', 1)),
        ("real-fits", raw.replace('"tcId":', '"x":1.7976931348623158e308,"y":1' + "0" * 300 + '.5e-10,"tcId":', 2)),
        ("repeated-nested", raw.replace('"tcId":', '"x":{"a":1,"\\u0061":2},"tcId":', 1)),
        ("repeated-many", raw.replace('"tcId":', '"x":{' + ",".join('"k%d":%d' % (i, i) for i in range(40)) + ',"k7":0},"tcId":', 1)),
        ("many-keys", raw.replace('"tcId":', '"x":{' + ",".join('"k%d":%d' % (i, i) for i in range(40)) + '},"tcId":', 2)),
        ("escaped-keys", raw.replace('"tcId":', '"t\\u0063Id":').replace('"expected":', '"\\u0065xpected":')),
        ("nul-after-number", raw.replace(',"flags"', '\0,"flags"', 3)),
        ("nul-after-string", raw.replace('","flags"', '"\0,"flags"', 1))]:
    W(name, raw=text)
res = []
for d in docs:
    for g in d["testGroups"]:
        for t in g["tests"]:
            e = t["expected"]
            if t["result"] == "invalid": res.append({"tcId": t["tcId"], "error": "rejected"}); continue
            pr = e.get("perRank", {}); nr = len(next(iter(pr.values()))) if pr else 0
            common = {k: v for k, v in e.items() if k not in ("perRank", "alternatives")}
            for r in range(nr):
                v = dict(common); v.update({k: a[r] for k, a in pr.items()})
                res.append({"tcId": t["tcId"], "rank": r, "values": v})
W("results", {"family": fam, "results": res})
W("results-altered", {"family": fam, "results": [dict(x, values=dict(x["values"], localShape=[9]))
                                                   if i % 5 == 0 and "values" in x else x for i, x in enumerate(res)][3:]})
# results files the scanned path reads (and the malformed ones it must word as the tree path does)
def R(name, f, fam_=fam):
    r = copy.deepcopy(res); out_ = f(r); W(name, out_ if isinstance(out_, dict) else {"family": fam_, "results": r})
multi = next(i for i, x in enumerate(res) if x.get("rank") == 1)   # res[multi] is rank 1 of a multi-rank test
R("r-pretty", lambda r: None)
with open(os.path.join(out, "c", "r-indent.json"), "w") as f: json.dump({"results": res, "family": fam}, f, indent=1)
R("r-reversed", lambda r: r.reverse())
R("r-not-object", lambda r: r.__setitem__(5, 7))
R("r-string-tcid", lambda r: r[4].update(tcId="4"))
R("r-no-tcid", lambda r: r[4].pop("tcId"))
R("r-neg-rank", lambda r: r[multi].update(rank=-1))
R("r-real-rank", lambda r: r[multi].update(rank=1.0))
R("r-string-rank", lambda r: r[multi].update(rank="1"))
R("r-null-rank", lambda r: r[multi].update(rank=None))
R("r-no-values", lambda r: r[multi].pop("values"))
R("r-values-list", lambda r: r[multi].update(values=[1]))
R("r-error-null", lambda r: (r[multi].pop("values"), r[multi].update(error=None)))
R("r-error-and-values", lambda r: r[multi].update(error="x"))
R("r-dup-rank", lambda r: r.insert(multi + 3, dict(r[multi])))
R("r-dup-three", lambda r: [r.insert(multi + 3, dict(r[multi])) for _ in range(2)])
R("r-dup-whole", lambda r: r.insert(multi + 2, {"tcId": r[multi]["tcId"], "values": r[multi]["values"]}))
R("r-whole-only", lambda r: r.__setitem__(slice(None), [x for x in r if x.get("rank", 0) == 0]))
R("r-dup-invalid", lambda r: r.append(dict(next(x for x in r if "error" in x))))
R("r-rank-gap", lambda r: (r.pop(multi),))
R("r-rank-extra", lambda r: r.insert(multi + 1, dict(r[multi], rank=999)))
R("r-unknown", lambda r: r.insert(7, {"tcId": 99999999, "rank": 0, "values": {}}))
R("r-unknown-then-bad", lambda r: (r.insert(2, {"tcId": 99999998, "values": {}}), r.insert(9, {"tcId": 99999999, "rank": 3, "values": {}}), r.__setitem__(multi + 4, {"tcId": 5})))
R("r-bad-then-dup", lambda r: (r.__setitem__(3, {"rank": 1}), r.append(dict(r[multi]))))
# entries not grouped by test (matching while scanning stops at the first test met again),
# and a rank after the values (the match made before it was known is void)
R("r-rank-major", lambda r: r.sort(key=lambda x: (x.get("rank", -1), x["tcId"] if isinstance(x, dict) and "tcId" in x else 0)))
W("r-rank-after-values", raw=json.dumps({"family": fam, "results": [({"tcId": x["tcId"], "values": x["values"], "rank": x["rank"]} if "rank" in x and i % 3 == 0 else x) for i, x in enumerate(res)]}, separators=(",", ":")))
W("r-rank-after-wrong", raw=json.dumps({"family": fam, "results": [({"tcId": x["tcId"], "values": x["values"], "rank": (x["rank"] + 1) % 2} if x.get("rank") in (0, 1) and i % 3 == 0 else x) for i, x in enumerate(res)]}, separators=(",", ":")))
# a case the candidate does not do (notSupported), alone and beside its answers
R("r-not-supported", lambda r: r.__setitem__(slice(None), [x for x in r if x.get("tcId") != r[multi]["tcId"]] + [{"tcId": r[multi]["tcId"], "notSupported": "not yet"}]))
R("r-not-supported-dup", lambda r: r.append({"tcId": r[multi]["tcId"], "notSupported": ""}))
# values the byte comparison (golden_bytes.c) must not call the same: the trees word them
R("r-extra-field", lambda r: r[multi]["values"].update(extra=1))
R("r-missing-field", lambda r: r[multi]["values"].pop(next(iter(r[multi]["values"]))))
R("r-real-for-int", lambda r: r[multi]["values"].update(localShape=[float(x) for x in r[multi]["values"]["localShape"]]))
R("r-longer-number", lambda r: r[multi]["values"].update(localShape=[int(str(x) + "0") for x in r[multi]["values"]["localShape"]]))
R("r-values-reordered", lambda r: [x.__setitem__("values", dict(reversed(list(x["values"].items())))) for x in r if "values" in x])
R("r-values-reordered-wrong", lambda r: [x.__setitem__("values", dict(reversed(list(dict(x["values"], localShape=[7]).items())))) for x in r[::7] if "values" in x])
R("r-old-spelling", lambda r: r[multi]["values"].update(local_shape=[1], global_offset=[0]))
R("r-old-spelling-string", lambda r: r[multi]["values"].update(note="\"local_shape\""))
W("r-repeated-key", raw=json.dumps({"family": fam, "results": res}, separators=(",", ":")).replace('"rank":', '"rank":0,"rank":', 2))
W("r-escape", raw=json.dumps({"family": fam, "results": res}, separators=(",", ":")).replace('"values":{', '"values":{"n\\u00e9":1,', 2))
# issue 27: what the scanner must read as jansson does, in a results file
rtext = json.dumps({"family": fam, "results": res}, separators=(",", ":"))
for name, text in [
        ("r-split-number", re.sub(r'"localShape":\[(\d)(\d+)', r'"localShape":[\1 \2', rtext, count=2)),
        ("r-split-late", rtext[::-1].replace(']"0"[', ']0 1[', 1)[::-1]),   # the last ["0"] as [1 0]
        ("r-real-overflow", rtext.replace('{"tcId":', '{"x":1' + "0" * 250 + 'e99,"tcId":', 1)),
        ("r-repeated-values", rtext.replace('"values":{', '"values":{"localShape":[0]},"values":{', 1)),
        ("r-repeated-field", rtext.replace('"values":{"localShape":', '"values":{"localShape":[0],"localShape":', 3)),
        ("r-repeated-escaped", rtext.replace('"values":{"localShape":', '"values":{"localShape":[0],"l\\u006fcalShape":', 1)),
        ("r-repeated-top", rtext.replace('{"family":', '{"note":1,"note":2,"family":', 1)),
        ("r-escaped-keys", rtext.replace('"tcId":', '"t\\u0063Id":').replace('"values":', '"v\\u0061lues":')),
        ("r-escaped-field", rtext.replace('"localShape":', '"l\\u006fcalShape":', 5)),
        ("r-utf8", rtext.replace('{"family":', '{"note":"caf\u00e9 \\ud83d\\ude00","family":', 1).replace('"error":"rejected"', '"error":"r\u00e9jet\\u00e9"')),
        ("r-bad-utf8", rtext.replace('{"family":', '{"note":"caf\xc3","family":', 1)),
        ("r-nul-after-number", rtext.replace(',"rank":', '\0,"rank":', 7)),
        ("r-family-escape", rtext.replace('"family":"shard-layout"', '"family":"shard\\u002dlayout"', 1)),
        ("r-family-other", rtext.replace('"family":"shard-layout"', '"family":"gr\\u006fup-ranks"', 1)),
        ("r-family-number", rtext.replace('"family":"shard-layout"', '"family":5', 1)),
        ("r-old-spelling-escaped", rtext.replace('"localShape":', '"local\\u005fshape":', 1)),
        # refused late in the file: jansson words it without the entries before (drop spans),
        # its line and column moved back (UTF-8, NUL bytes and newlines in what was left out)
        # issue 36: the entry opening read at once ({"tcId":N,"rank":R,"values":{ compact) must
        # leave every other spelling of it to the walk: leading zeros, -0, a real, 19+ digits,
        # a space before the values
        ("r-prefix-tcid-zero", re.sub(r'\{"tcId":(\d+),"rank":', r'{"tcId":0\1,"rank":', rtext, count=1)),
        ("r-prefix-rank-zero", re.sub(r',"rank":1,"values":', r',"rank":01,"values":', rtext, count=1)),
        ("r-prefix-rank-minus-zero", rtext.replace(',"rank":0,"values":', ',"rank":-0,"values":', 3)),
        ("r-prefix-tcid-real", re.sub(r'\{"tcId":(\d+),"rank":', r'{"tcId":\1.0,"rank":', rtext, count=2)),
        ("r-prefix-tcid-exp", re.sub(r'\{"tcId":(\d+),"rank":', r'{"tcId":\1e0,"rank":', rtext, count=2)),
        ("r-prefix-tcid-long", re.sub(r'\{"tcId":(\d+),"rank":', r'{"tcId":1000000000000000000\1,"rank":', rtext, count=1)),
        ("r-prefix-tcid-19", re.sub(r'\{"tcId":(\d+),"rank":', r'{"tcId":100000000000000000,"rank":', rtext, count=1)),
        ("r-prefix-values-space", rtext.replace(',"values":{', ',"values": {', 5)),
        ("r-spaced", json.dumps({"family": fam, "results": res})),   # Python's default spacing
        ("r-spaced-altered", json.dumps({"family": fam, "results": [dict(x, values=dict(x["values"], localShape=[9])) if i % 5 == 0 and "values" in x else x for i, x in enumerate(res)]})),
        ("r-spaced-two", json.dumps({"family": fam, "results": res}).replace(": ", ":  ", 40).replace(", ", ",  ", 40)),
        ("r-spaced-tab", json.dumps({"family": fam, "results": res}).replace(": ", ":\t", 40)),
        ("r-prefix-values-list", rtext.replace(',"values":{', ',"values":[{', 1).replace('}},{', '}]},{', 1)),
        ("r-late-error", rtext[:-60] + "\x01" + rtext[-59:]),
        ("r-late-eof", rtext[:-3]),
        ("r-comma-close", rtext[:-2] + ",]}"),
        ("r-comma-comma", rtext[:-2] + ",,{}]}"),
        ("r-late-after", rtext[:-1] + ',"x":1,"x":2}'),
        ("r-late-utf8", rtext.replace('"error":"rejected"', '"error":"r\u00e9j\u00e9t\u00e9\U0001F600"')[:-60] + "\u00e9\x01" + rtext[-59:]),
        ("r-late-bad-utf8", rtext.replace('"error":"rejected"', '"error":"\u00e9"')[:-60].encode() + b'"\xc3"' + rtext[-59:].encode()),
        ("r-late-nul", rtext.replace(',"rank":', '\0,"rank":', 50)[:-60] + "\x01" + rtext[-59:]),
        ("r-late-repeat-nul", rtext.replace(',"rank":', '\0,"rank":', 50)[:-2] + ',{"tcId":1,"tcId":1}]}'),
        ("r-late-repeat-long", rtext[:-2] + ',{"tcId":1,"a_very_long_key_name_past_twenty":1,"a_very_long_key_name_past_twenty":2}]}'),
        ("r-repeat-early-many", rtext.replace('{"family":', "{" + "".join('"k%d":%d,' % (i, i) for i in range(20)) + '"k3":1,"family":', 1)),
        ("r-repeat-early-many-after", rtext[:-1] + "," + ",".join('"k%d":%d' % (i, i) for i in range(20)) + ',"k3":1}'),
        ("r-late-lines", json.dumps({"family": fam, "results": res}, indent=1)[:-80] + "]]" + json.dumps({"family": fam, "results": res}, indent=1)[-80:]),
        ("late-test", raw[:-300] + "\x01" + raw[-299:]),
        ("late-group", raw.replace('"tests":[', '"tests":[]}, {"tests":[', 3)[:-2] + "x]}"),
        ("late-lines", json.dumps(one, indent=2)[:-400] + "@" + json.dumps(one, indent=2)[-399:])]:
    W(name, raw=text)
R("r-not-supported-escape", lambda r: r.__setitem__(slice(None), [x for x in r if x.get("tcId") != r[multi]["tcId"]] + [{"tcId": r[multi]["tcId"], "notSupported": "caf\u00e9"}]))
R("r-not-supported-rank", lambda r: r.__setitem__(slice(None), [x for x in r if x.get("tcId") != r[multi]["tcId"]] + [{"tcId": r[multi]["tcId"], "rank": 3, "notSupported": "x"}]))
R("r-not-supported-bad-rank", lambda r: r.append({"tcId": r[multi]["tcId"], "rank": -1, "notSupported": "x"}))
R("r-not-supported-null", lambda r: r.append({"tcId": r[multi]["tcId"], "notSupported": None}))
R("r-not-supported-error", lambda r: r.append({"tcId": r[multi]["tcId"], "notSupported": "x", "error": "y"}))
W("r-truncated", raw=json.dumps({"family": fam, "results": res}, separators=(",", ":"))[:-40])
R("r-family", lambda r: None, fam_="group-ranks")
R("r-not-array", lambda r: {"family": fam, "results": {"tcId": 1}})
R("r-and-groups", lambda r: {"family": fam, "results": r, "testGroups": "x"})
R("r-fields", lambda r: {"family": fam, "results": r, "fields": ["localShape"]})
R("r-empty", lambda r: {"family": fam, "results": []})
PYEOF
for g in "$tmp"/g-*; do write_manifest "$g"; done

same=0; differ=""
for g in "$tmp"/g-*; do
  cands="$tmp/c/*.json"
  case $g in # a golden family verify refuses: the candidate is never read, three will do
    *g-syntax|*g-flag|*g-dup|*g-dupkey) cands="$tmp/c/all.json $tmp/c/results.json $tmp/c/r-escape.json" ;;
  esac
  # every output form against the clean family, and the default and JSON forms against the
  # tampered ones: what those watch is the scanner reading each candidate and family, and the
  # JSON form already prints every result the TAP and verbose forms render (issue 36: CI time;
  # 3,600 runs were 5 minutes of the plain make check).  Sampled (the ASan and distcheck make
  # checks, where a run costs five times as much) each candidate meets the clean family once,
  # in the default and the JSON form by turns, and every third one the tampered families in the
  # default form: the plain build compares them all.
  fmts='"" --json --tap --verbose'
  [ "$(basename "$g")" != g-clean ] && fmts='"" --json'
  k=0
  for c in $cands; do
    k=$((k+1))
    eval "set -- $fmts"
    if sampled; then
      case $(basename "$g"):$((k % 3)) in
        g-clean:0|g-clean:2) set -- "" ;;
        g-clean:1) set -- --json ;;
        *g-syntax:*|*g-flag:*|*g-dup:*|*g-dupkey:*|*:0) set -- "" ;;
        *) continue ;;
      esac
    fi
    for fmt in "$@"; do
      "$SHARDCHECK" verify --family "$fam" --golden "$g" --candidate "$c" $fmt >"$tmp/a.out" 2>"$tmp/a.err"; ra=$?
      SHARDCHECK_VERIFY_TREES=1 "$SHARDCHECK" verify --family "$fam" --golden "$g" --candidate "$c" $fmt \
        >"$tmp/b.out" 2>"$tmp/b.err"; rb=$?
      if [ "$ra" = "$rb" ] && cmp -s "$tmp/a.out" "$tmp/b.out" && cmp -s "$tmp/a.err" "$tmp/b.err"; then
        same=$((same+1))
      else
        differ="$differ $(basename "$g")/$(basename "$c" .json)${fmt:+ $fmt} (exit $ra vs $rb)"
      fi
    done
  done
  [ "$(basename "$g")" = g-clean ] || continue
  # the clean family must really be compared: the golden-shaped copy passes, the altered one fails
  expect_exit "scanned: the golden family as candidate passes" 0 "passed, 0 failed" \
    "$SHARDCHECK" verify --family "$fam" --golden "$g" --candidate "$tmp/c/all.json"
  expect_exit "scanned: altered values fail" 1 "expected .*, got" \
    "$SHARDCHECK" verify --family "$fam" --golden "$g" --candidate "$tmp/c/altered.json"
done
if [ -z "$differ" ]; then tap_ok "scanned and tree paths agree on $same runs (output, messages, exit code)"
else tap_not_ok "scanned and tree paths differ" "$differ"; fi
tap_done
