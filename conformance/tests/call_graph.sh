#!/bin/sh
# call_graph.sh — calls go one way (issue 23 item 6): read from the built object files' symbol
# references (nm -P: a file calls another when it references a symbol the other defines), no
# source file calls back into a file that calls it, directly or around a circle; no area
# (lib/core, lib/plan, conformance/corpus, tools/cli, ...) calls back into an area that
# calls it; and the layers hold: lib/ calls nothing in conformance/ or tools/,
# conformance/ nothing in tools/, and tools/common nothing in another tools area.
# Deliberate circles would be listed in ALLOWED (files, space-separated, one circle a line):
# the host/device kernel-body pairs share headers (SHC_HD bodies), not calls, so none is.
# include_graph.sh checks the #include graph the same way from the sources.
. "$(dirname "$0")/testlib.sh"
command -v nm >/dev/null 2>&1 || skip_all "no nm"
[ -d "$top_builddir/lib" ] || skip_all "no build tree at $top_builddir"
ALLOWED=""
out=$(ALLOWED="$ALLOWED" python3 - "$top_builddir" "$top_srcdir" <<'PY'
import os, subprocess, sys
build, top = sys.argv[1], sys.argv[2]
allowed = {frozenset(l.split()) for l in os.environ.get("ALLOWED", "").splitlines() if l.strip()}
objs = {}
for root, _, names in os.walk(build):
    for f in names:
        if not f.endswith(".o"):
            continue
        o = os.path.join(root, f)
        d = os.path.relpath(root, build).replace("/.libs", "")
        if not d.startswith(("lib", "conformance/corpus", "conformance/families", "tools")):
            continue
        b = f[:-2].split("-", 1)[-1]  # automake's per-target prefix: tgt-file.o
        src = d + "/" + b
        if not any(os.path.exists(os.path.join(top, src + e)) for e in (".c", ".cu")):
            continue  # an object left from a file that moved
        if src not in objs or os.path.getmtime(o) > os.path.getmtime(objs[src]):
            objs[src] = o
defs, refs = {}, {}
for src, o in objs.items():
    r = subprocess.run(["nm", "-P", o], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        p = line.split()
        if len(p) < 2:
            continue
        if p[1] == "U":
            refs.setdefault(src, set()).add(p[0])
        elif p[1] in "TDBRVW":
            defs.setdefault(p[0], set()).add(src)
graph = {s: set() for s in objs}
for s, names in refs.items():
    for n in names:
        graph[s] |= {d for d in defs.get(n, ()) if d != s}
def area(f):
    return "/".join(f.split("/")[:2])
agraph = {}
for a, bs in graph.items():
    for b in bs:
        if area(a) != area(b):
            agraph.setdefault(area(a), set()).add(area(b))
def circles(g):
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    sys.setrecursionlimit(100000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out
def why(g, comp):
    return ", ".join(f"{a} -> {b}" for a in comp for b in sorted(g.get(a, ())) if b in comp)
fc = [c for c in circles(graph) if frozenset(c) not in allowed]
ac = circles(agraph)
rules = [("lib/", ("conformance/", "tools/")), ("conformance/", ("tools/",)),
         ("tools/common", ("tools/cli", "tools/run", "tools/verify", "tools/kit"))]
up = [f"{a} -> {b}" for a in sorted(graph) for b in sorted(graph[a])
      for lo, hi in rules if a.startswith(lo) and b.startswith(hi)]
print("OBJECTS", len(objs))
print("FILES", "; ".join(f"{' '.join(c)} ({why(graph, c)})" for c in fc))
print("AREAS", "; ".join(f"{' '.join(c)} ({why(agraph, c)})" for c in ac))
print("UP", "; ".join(up))
PY
)
get() { printf '%s\n' "$out" | sed -n "s/^$1 //p"; }
n=$(get OBJECTS); files=$(get FILES); areas=$(get AREAS); up=$(get UP)
[ "${n:-0}" -ge 50 ] && tap_ok "the object files were read ($n)" || tap_not_ok "the object files were read" "$out"
[ -z "$files" ] && tap_ok "no call circle between source files" || tap_not_ok "no call circle between source files" "$files"
[ -z "$areas" ] && tap_ok "no call circle between areas" || tap_not_ok "no call circle between areas" "$areas"
[ -z "$up" ] && tap_ok "calls go down the layers (lib < conformance < tools; tools/common below the other tools areas)" \
  || tap_not_ok "calls go down the layers" "$up"
tap_done
