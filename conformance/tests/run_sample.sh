#!/bin/sh
# run_sample.sh — `run --max-cases-of FAMILY=N`: a family's own --max-cases, over the others'
# (the main job runs every case of every torch family at np 8 but redistribute-plan's, which it
# samples there).  Each family's count is read from run's per-family lines; a family given 0
# runs whole while --max-cases cuts the rest.  Its refusals are rows of refusals/run.txt.
. "$(dirname "$0")/testlib.sh"
need_golden threefry
count() { printf '%s\n' "$1" | sed -n "s/^$2  *\([0-9][0-9]*\) cases:.*/\1/p"; }
out=$("$SHARDCHECK" run --backend ref --golden "$G" --max-cases 2 --max-cases-of threefry=5 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$(count "$out" threefry)" = 5 ] && [ "$(count "$out" shard-layout)" = 2 ] \
  && tap_ok "--max-cases 2 --max-cases-of threefry=5: threefry 5 cases, shard-layout 2" \
  || tap_not_ok "--max-cases 2 --max-cases-of threefry=5" "exit $rc" \
       "threefry $(count "$out" threefry), shard-layout $(count "$out" shard-layout)"
whole=$("$SHARDCHECK" run --backend ref --golden "$G" --family threefry 2>&1 | sed -n 's/^threefry  *\([0-9][0-9]*\) cases:.*/\1/p')
out=$("$SHARDCHECK" run --backend ref --golden "$G" --max-cases 1 --max-cases-of threefry=0 2>&1); rc=$?
[ $rc -eq 0 ] && [ -n "$whole" ] && [ "$whole" -gt 1 ] && [ "$(count "$out" threefry)" = "$whole" ] \
  && [ "$(count "$out" group-ranks)" = 1 ] \
  && tap_ok "--max-cases 1 --max-cases-of threefry=0: threefry whole ($whole cases), group-ranks 1" \
  || tap_not_ok "--max-cases-of threefry=0 runs threefry whole" "exit $rc" \
       "threefry $(count "$out" threefry) of $whole, group-ranks $(count "$out" group-ranks)"
tap_done
