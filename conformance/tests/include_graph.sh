#!/bin/sh
# include_graph.sh — the layers hold: no #include loop anywhere in the tree (a header reached from
# itself, e.g. the planner's files including each other), and call_graph.sh's area rules hold
# for includes: lib/ includes nothing from conformance/ or tools/ (semantics below the corpus
# and the CLI), conformance/ nothing from tools/, tools/common nothing from another tools area,
# and no two areas include each other's headers, directly or around a circle.  Reads the
# sources only.
. "$(dirname "$0")/testlib.sh"
out=$(cd "$top_srcdir" && python3 - <<'PY'
import glob, os, re, sys
files = [f for f in glob.glob("**/*.[ch]", recursive=True)
         if not f.startswith(("_build", ".venv")) and "/_build" not in f]
where = {}
for f in files:
    where.setdefault(os.path.basename(f), []).append(f)
def resolve(f, name):
    local = os.path.normpath(os.path.join(os.path.dirname(f), name))
    if os.path.exists(local):
        return local
    cands = where.get(os.path.basename(name), [])
    return cands[0] if len(cands) == 1 else None  # system or ambiguous: not ours to follow
graph = {}
for f in files:
    text = open(f, errors="ignore").read()
    graph[f] = {d for d in (resolve(f, m.group(1)) for m in re.finditer(r'#include "([^"]+)"', text))
                if d and d != f}
state, loops = {}, []
def walk(u, path):
    state[u] = 1
    path.append(u)
    for v in sorted(graph.get(u, ())):
        if state.get(v) == 1:
            loops.append(" -> ".join(path[path.index(v):] + [v]))
        elif not state.get(v):
            walk(v, path)
    path.pop()
    state[u] = 2
for u in sorted(graph):
    if not state.get(u):
        walk(u, [])
# call_graph.sh's area rules, for includes: lib < conformance < tools, tools/common below
# the other tools areas, and no circle between areas (tools/kit including a tools/cli header
# while tools/cli includes tools/kit's)
rules = [("lib/", ("conformance/", "tools/")), ("conformance/", ("tools/",)),
         ("tools/common", ("tools/cli", "tools/run", "tools/verify", "tools/kit"))]
# (the unit tests in conformance/tests reach every layer's headers: they sit above them all)
up = [f"{f} includes {d}" for f in sorted(files) for d in sorted(graph[f])
      for lo, hi in rules if f.startswith(lo) and d.startswith(hi)
      and not f.startswith("conformance/tests/")]
def area(f):
    return "/".join(f.split("/")[:2])
agraph = {}
for f in files:
    for d in graph[f]:
        if area(f) != area(d):
            agraph.setdefault(area(f), {}).setdefault(area(d), f"{f} includes {d}")
acirc, seen = [], set()
def reach(a, b, path):  # a path a -> ... -> b in the area graph
    if a == b:
        return path
    for c in sorted(agraph.get(a, {})):
        if c not in path:
            r = reach(c, b, path + [c])
            if r:
                return r
    return None
for a in sorted(agraph):
    for b in sorted(agraph[a]):
        back = reach(b, a, [b])
        key = frozenset([a] + (back or []))
        if back and key not in seen:
            seen.add(key)
            ring = [a] + back
            acirc.append(", ".join(agraph[x][y] for x, y in zip(ring, ring[1:])))
print("LOOPS", "; ".join(loops))
print("UP", "; ".join(up))
print("AREAS", "; ".join(acirc))
PY
)
loops=$(printf '%s\n' "$out" | sed -n 's/^LOOPS //p'); up=$(printf '%s\n' "$out" | sed -n 's/^UP //p')
[ -z "$loops" ] && tap_ok "no #include loop" || tap_not_ok "no #include loop" "$loops"
[ -z "$up" ] && tap_ok "includes go down the layers (lib < conformance < tools; tools/common below the other tools areas)" \
  || tap_not_ok "includes go down the layers" "$up"
areas=$(printf '%s\n' "$out" | sed -n 's/^AREAS //p')
[ -z "$areas" ] && tap_ok "no include circle between areas" || tap_not_ok "no include circle between areas" "$areas"
printf '%s\n' "$out" | grep -q '^LOOPS' && tap_ok "the include graph was read" || tap_not_ok "the include graph was read" "$out"
tap_done
