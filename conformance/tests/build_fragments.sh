#!/bin/sh
# build_fragments.sh — one area = one folder = one build fragment (issue 37 item 5): every
# source of a product (libshccore, libshardcheck, libshcgen, libshcverify, shardcheck) that
# lives in an area folder (lib/X, conformance/X, tools/X) is listed in mk/X.am and in no
# other fragment nor Makefile.am; every C or CUDA file of an area folder is named by its
# area's fragment (so a new file cannot be left out or filed under another area); and
# Makefile.am includes every fragment in mk/, and DISTCHECK_TESTS names only tests in TESTS.
# include_graph.sh and call_graph.sh check the same areas' includes and calls.  Reads the automake sources only.
. "$(dirname "$0")/testlib.sh"
out=$(cd "$top_srcdir" && python3 - <<'PY'
import glob, os, re
PRODUCTS = {"lib_libshccore_la_SOURCES", "lib_libshardcheck_la_SOURCES",
            "conformance_libshcgen_la_SOURCES", "tools_shardcheck_SOURCES",
            "tools_verify_libshcverify_la_SOURCES"}
ams = ["Makefile.am"] + sorted(glob.glob("mk/*.am"))
text = {f: open(f).read() for f in ams}
def assignments(s):
    s = s.replace("\\\n", " ")
    for line in s.splitlines():
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*\+?=(.*)$", line)
        if m:
            yield m.group(1), m.group(2).split()
def area(path):
    p = path.split("/")
    return p[1] if len(p) >= 3 and p[0] in ("lib", "conformance", "tools") else None
misfiled = []
for f in ams:
    for var, words in assignments(text[f]):
        if var not in PRODUCTS:
            continue
        for w in words:
            a = area(w)
            if a and f != f"mk/{a}.am":
                misfiled.append(f"{w} ({var}) is listed in {f}, not mk/{a}.am")
print("MISFILED", "; ".join(misfiled))
unnamed = []
for p in sorted(glob.glob("lib/*/**/*.*", recursive=True) + glob.glob("tools/*/**/*.*", recursive=True)
                + glob.glob("conformance/corpus/*.*") + glob.glob("conformance/families/*.*")):
    if not p.endswith((".c", ".h", ".cu")):
        continue
    frag = f"mk/{area(p)}.am"
    # a CUDA source is named by $(SHC_CUDA_SRCS), a list in its fragment
    if not re.search(r"(^|[\s=])" + re.escape(p) + r"($|\s|\\)", text.get(frag, ""), re.M):
        unnamed.append(f"{p} is not named in {frag}")
print("UNNAMED", "; ".join(unnamed))
inc = set(re.findall(r"^include \$\(top_srcdir\)/(mk/\S+\.am)", text["Makefile.am"], re.M))
print("ORPHANS", "; ".join(f for f in ams[1:] if f not in inc))
# distcheck's subset (Makefile.am DISTCHECK_TESTS) names only tests make check runs
tests = {w for f in ams for var, words in assignments(text[f]) if var in ("TESTS", "SLOW_TESTS")
         for w in words}
sub = [w for var, words in assignments(text["Makefile.am"]) if var == "DISTCHECK_TESTS"
       for w in words if not w.startswith("$(")]
print("DISTCHECK", "; ".join(w for w in sub if w not in tests) if sub else "no DISTCHECK_TESTS")
PY
)
m=$(printf '%s\n' "$out" | sed -n 's/^MISFILED //p')
[ -z "$m" ] && tap_ok "each product source is listed in its area's fragment mk/<area>.am" \
  || tap_not_ok "each product source is listed in its area's fragment" "$m"
u=$(printf '%s\n' "$out" | sed -n 's/^UNNAMED //p')
[ -z "$u" ] && tap_ok "each C/CUDA file of an area folder is named by that area's fragment" \
  || tap_not_ok "each C/CUDA file of an area folder is named by that area's fragment" "$u"
o=$(printf '%s\n' "$out" | sed -n 's/^ORPHANS //p')
[ -z "$o" ] && tap_ok "Makefile.am includes every fragment in mk/" || tap_not_ok "Makefile.am includes every fragment in mk/" "$o"
d=$(printf '%s\n' "$out" | sed -n 's/^DISTCHECK //p')
[ -z "$d" ] && tap_ok "distcheck's test subset (DISTCHECK_TESTS) names only tests in TESTS" \
  || tap_not_ok "distcheck's test subset (DISTCHECK_TESTS) names only tests in TESTS" "$d"
printf '%s\n' "$out" | grep -q '^MISFILED' && tap_ok "the fragments were read" || tap_not_ok "the fragments were read" "$out"
tap_done
