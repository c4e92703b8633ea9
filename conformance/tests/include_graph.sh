#!/bin/sh
# include_graph.sh — the layers hold: no #include loop anywhere in the tree (a header reached from
# itself, e.g. the planner's files including each other), and lib/ includes nothing from
# conformance/ or tools/ (semantics below the corpus and the CLI).  Reads the sources only.
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
up = [f"{f} includes {d}" for f in files if f.startswith("lib/")
      for d in graph[f] if d.startswith(("conformance/", "tools/"))]
print("LOOPS", "; ".join(loops))
print("UP", "; ".join(up))
PY
)
loops=$(printf '%s\n' "$out" | sed -n 's/^LOOPS //p'); up=$(printf '%s\n' "$out" | sed -n 's/^UP //p')
[ -z "$loops" ] && tap_ok "no #include loop" || tap_not_ok "no #include loop" "$loops"
[ -z "$up" ] && tap_ok "lib/ includes nothing from conformance/ or tools/" || tap_not_ok "lib/ includes nothing from conformance/ or tools/" "$up"
printf '%s\n' "$out" | grep -q '^LOOPS' && tap_ok "the include graph was read" || tap_not_ok "the include graph was read" "$out"
tap_done
