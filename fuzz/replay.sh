#!/bin/sh
# fuzz/replay.sh — `make check` replays every committed fuzz input: for each target, the seed
# corpus fuzz/corpus/T/ and the crash reproducers fuzz/regressions/T/ go through the target's
# entry point (fuzz/replay_T, no libFuzzer; sanitizers come from the build's CFLAGS).
# Reproducers of defects not fixed yet are listed in fuzz/regressions/PENDING and left out.
. "$top_srcdir/conformance/tests/testlib.sh"
F=$top_srcdir/fuzz
pending=$F/regressions/PENDING
for t in parse golden family candidate plugin verify_diff; do
  bin=$top_builddir/fuzz/replay_$t
  list=$(mktemp)
  for f in "$F"/corpus/$t/* "$F"/regressions/$t/*; do
    [ -f "$f" ] || continue
    grep -qxF "${f#"$F"/regressions/}" "$pending" 2>/dev/null && continue
    printf '%s\n' "$f" >>"$list"
  done
  n=$(wc -l <"$list")
  if [ "$n" -eq 0 ]; then
    tap_not_ok "$t: no corpus or regression inputs" "looked in $F/corpus/$t and $F/regressions/$t"
  else
    out=$("$bin" <"$list" 2>&1); rc=$?
    if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q "^replayed $n inputs"; then
      tap_ok "$t: $n inputs replayed"
    else
      tap_not_ok "$t: replay failed (exit $rc)" "$(printf '%s' "$out" | grep -v '^replay: /' | head -c 1500)" \
        "last input: $(printf '%s' "$out" | grep '^replay: /' | tail -n1)"
    fi
  fi
  rm -f "$list"
done
tap_done
