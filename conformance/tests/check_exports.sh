#!/bin/sh
# check_exports.sh — libshardcheck exports exactly its API (the jansson practice): the dynamic
# symbol table of the built shared library equals lib/libshardcheck.sym, and that list equals
# the functions the installed headers declare.  A function added to lib/ but not to an
# installed header and the list stays internal; one exported without being declared, or
# declared without being exported, fails here with its name.
. "$(dirname "$0")/testlib.sh"
so=$top_builddir/lib/.libs/libshardcheck.so
sym=$top_srcdir/lib/libshardcheck.sym
use_tmpdir
[ -f "$so" ] || skip_all "no shared library built (configure --disable-shared?)"
nm -D --defined-only "$so" | awk '$2 == "T" {print $3}' | sort >"$tmp/exported"
sort "$sym" >"$tmp/listed"
for h in shardcheck.h shardcheck_release.h shardcheck_exec.h shardcheck_ops.h shardcheck_policy.h shardcheck_view.h shardcheck_mesh_layout.h shardcheck_backend.h; do
  gcc -fpreprocessed -dD -E -P "$top_srcdir/lib/$h" 2>/dev/null
done | grep -oE '\bshc_[a-z0-9_]+[[:space:]]*\(' | sed 's/[[:space:]]*(//' | sort -u >"$tmp/declared"
if cmp -s "$tmp/exported" "$tmp/listed"; then tap_ok "the library exports exactly lib/libshardcheck.sym"
else tap_not_ok "the library exports exactly lib/libshardcheck.sym" \
  "exported, not listed: $(comm -23 "$tmp/exported" "$tmp/listed" | tr '\n' ' ')" \
  "listed, not exported: $(comm -13 "$tmp/exported" "$tmp/listed" | tr '\n' ' ')"; fi
if cmp -s "$tmp/declared" "$tmp/listed"; then tap_ok "lib/libshardcheck.sym is what the installed headers declare"
else tap_not_ok "lib/libshardcheck.sym is what the installed headers declare" \
  "declared, not listed: $(comm -23 "$tmp/declared" "$tmp/listed" | tr '\n' ' ')" \
  "listed, not declared: $(comm -13 "$tmp/declared" "$tmp/listed" | tr '\n' ' ')"; fi
n=$(wc -l <"$tmp/exported")
[ "$n" -gt 50 ] && tap_ok "the API is not empty ($n functions)" || tap_not_ok "the API is not empty" "$n functions"
tap_done
