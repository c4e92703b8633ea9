#!/bin/sh
# registry_lint.sh — no script lists the torch releases or the golden families itself (issue 37
# item 3): they ask `shardcheck registry` (the harness through harnesslib.patches()).  A line of a
# tracked script (*.sh, *.py, fuzz/*.c) naming three or more of the registry's releases, or three
# or more of its families, is a list; it fails unless its file is in registry_lint.allow, each
# entry with the reason that file may name them (a test about those families, a table that binds
# names to code).  The names come from the binary, so a new release or family is linted too.  An
# allowlist entry that no longer matches anything fails as well (the list it excused is gone).
# The lint is checked on itself: a planted list must be caught.  It also checks that no member of
# the family record (conformance/families/family.h) is named after a backend (issue 37 item 2).
. "$(dirname "$0")/testlib.sh"
need_python "the lint"
use_tmpdir
allow="$top_srcdir/conformance/tests/registry_lint.allow"
"$S" registry --names releases >"$tmp/rel" && "$S" registry releases | cut -d' ' -f2 >>"$tmp/rel" \
  && "$S" registry --names families >"$tmp/fam" \
  || { tap_not_ok "shardcheck registry answers" "$(cat "$tmp/rel" "$tmp/fam")"; tap_done; exit 1; }

# No hook of the family record is named after a backend (issue 37 item 2): the record's groups
# and members say what a hook does (exec.over_comm, device.fill, project.abi_v1), and backends
# are providers that use them.  A member name with a backend's name as one of its '_'-separated
# words fails (mpi, cuda_view, plugin_exec); the backend names come from the binary.
"$S" registry --names backends >"$tmp/be" \
  || { tap_not_ok "shardcheck registry answers" "$(cat "$tmp/be")"; tap_done; exit 1; }
# hooklint FAMILY_H: "member" for each member of struct shc_family named after a backend.
hooklint() {
  "$PY" - "$tmp/be" "$1" <<'PYEOF'
import re, sys
backends = {l.strip() for l in open(sys.argv[1]) if l.strip()}
text = open(sys.argv[2]).read()
body = re.search(r"typedef struct shc_family \{(.*)\} shc_family;", text, re.S)
if not body:
    sys.exit("no struct shc_family in " + sys.argv[2])
code = re.sub(r"/\*.*?\*/", " ", body.group(1), flags=re.S)
code = re.sub(r"\([^()]*\)\s*;", ";", code)  # a function pointer's parameter list
names = re.findall(r"(\w+)\)?\s*;", code)
for n in names:
    if set(n.lower().split("_")) & backends:
        print(n)
print("members: %d" % len(names), file=sys.stderr)
PYEOF
}
fam_h="$top_srcdir/conformance/families/family.h"
if hooklint "$fam_h" >"$tmp/hooks.bad" 2>"$tmp/hooks.n" && [ ! -s "$tmp/hooks.bad" ] \
   && grep -q '^members: [1-9]' "$tmp/hooks.n"; then
  tap_ok "no family hook is named after a backend ($(cat "$tmp/hooks.n"),\
 $(wc -l <"$tmp/be") backends)"
else tap_not_ok "no family hook is named after a backend" \
  "named after a backend: $(tr '\n' ' ' <"$tmp/hooks.bad")" "$(cat "$tmp/hooks.n")" \
  "name the hook for what it does (docs/DESIGN.md, \"The family record\")"; fi
# ... and is checked on itself: a group and a hook named after backends are caught.
sed -e 's/} exec;/} mpi;/' -e 's/(\*fill)/(*cuda_view)/' "$fam_h" >"$tmp/family.h"
hooklint "$tmp/family.h" >"$tmp/planted" 2>/dev/null
if [ "$(tr '\n' ' ' <"$tmp/planted")" = "mpi cuda_view " ]; then
  tap_ok "the hook lint catches planted names"
else tap_not_ok "the hook lint catches planted names" "got: $(tr '\n' ' ' <"$tmp/planted")"; fi

command -v git >/dev/null 2>&1 && [ -e "$top_srcdir/.git" ] || {
  tap_skip "no script lists the releases or families itself" \
    "not a git checkout (the lint walks the tracked files)"
  tap_done; exit $?; }
(cd "$top_srcdir" && git ls-files -- '*.sh' '*.py' 'fuzz/*.c') >"$tmp/files"

# lint NAMES FILELIST DIR: "path:line: text" for each line naming >= 3 distinct NAMES (whole words;
# a '.' in a name is literal).
lint() {
  "$PY" - "$1" "$2" "$3" <<'PYEOF'
import re, sys, os
names = sorted({l.strip() for l in open(sys.argv[1]) if l.strip()}, key=len, reverse=True)
pat = re.compile(r"(?<![\w.-])(%s)(?![\w-]|\.\d)" % "|".join(re.escape(n) for n in names))
minor = {n: n.rsplit(".", 1)[0] if n.count(".") == 2 else n for n in names}
for path in open(sys.argv[2]).read().split():
    try:
        text = open(os.path.join(sys.argv[3], path), errors="replace").read()
    except OSError:
        continue
    for i, line in enumerate(text.splitlines(), 1):
        hit = {minor[m] for m in pat.findall(line)}
        if len(hit) >= 3:
            print("%s:%d: %s" % (path, i, line.strip()[:160]))
PYEOF
}
lint "$tmp/rel" "$tmp/files" "$top_srcdir" >"$tmp/rel.hits"
lint "$tmp/fam" "$tmp/files" "$top_srcdir" >"$tmp/fam.hits"
sed -n 's/^\([^#: ][^:]*\):.*/\1/p' "$allow" | sort -u >"$tmp/allowed"
for kind in rel fam; do
  what=$([ $kind = rel ] && echo "the torch releases" || echo "the golden families")
  cut -d: -f1 "$tmp/$kind.hits" | sort -u | comm -23 - "$tmp/allowed" >"$tmp/$kind.bad"
  if [ -s "$tmp/$kind.bad" ]; then
    tap_not_ok "no script lists $what itself" "$(grep -F -f "$tmp/$kind.bad" "$tmp/$kind.hits" | head -n 8)" \
      "ask shardcheck registry instead, or add the file to conformance/tests/registry_lint.allow with why"
  else tap_ok "no script lists $what itself ($(wc -l <"$tmp/$kind.hits") allowed lines)"; fi
done
cat "$tmp/rel.hits" "$tmp/fam.hits" | cut -d: -f1 | sort -u >"$tmp/hit"
stale=$(comm -23 "$tmp/allowed" "$tmp/hit" | tr '\n' ' ')
[ -z "$stale" ] && tap_ok "every allowlist entry still excuses a list" \
  || tap_not_ok "every allowlist entry still excuses a list" "no list left in: $stale" \
       "remove them from conformance/tests/registry_lint.allow"

# The lint catches a planted list of each kind, and leaves one name alone.
mkdir -p "$tmp/tree"
printf 'for r in %s; do :; done\n' "$(head -n 3 "$tmp/rel" | tr '\n' ' ')" >"$tmp/tree/a.sh"
printf 'FAMS = %s\n' "$(head -n 3 "$tmp/fam" | sed 's/.*/"&"/' | tr '\n' ,)" >"$tmp/tree/b.py"
printf 'F=%s\n' "$(head -n 1 "$tmp/fam")" >"$tmp/tree/c.sh"
printf 'a.sh\nb.py\nc.sh\n' >"$tmp/tree.files"
lint "$tmp/rel" "$tmp/tree.files" "$tmp/tree" >"$tmp/p.rel"
lint "$tmp/fam" "$tmp/tree.files" "$tmp/tree" >"$tmp/p.fam"
if grep -q '^a\.sh:1:' "$tmp/p.rel" && grep -q '^b\.py:1:' "$tmp/p.fam" \
   && ! grep -q '^c\.sh' "$tmp/p.rel" "$tmp/p.fam"; then tap_ok "the lint catches planted lists"
else tap_not_ok "the lint catches planted lists" "$(cat "$tmp/p.rel" "$tmp/p.fam")"; fi
tap_done
