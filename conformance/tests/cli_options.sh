#!/bin/sh
# cli_options.sh — no silently ignored option (issue 25 item 4): every option a command accepts
# either acts or is refused by name, in every mode of the command.
#
# The commands and their options come from the program (`shardcheck --list-commands`, each
# command's generated --help, as cli_framework.sh walks them); the modes and a sample value per
# option are the tables below, and an option or command the tables lack fails the test, so a new
# option cannot slip in without being walked.  For each mode the base command runs once; then
# the base with each option it does not already give, run in a fresh directory.  The option
#   - is refused when the run exits 2 naming it (--opt) on stderr;
#   - acts when the exit code, stdout or the files the run writes differ from the base's
#     (timestamps, case durations and the report's echoed command line normalised away);
#   - else it was ignored: not ok.
# ALLOW lists the few options whose effect one quick run cannot show, each with its reason
# and the test that shows it.
. "$(dirname "$0")/testlib.sh"
need_golden threefry rng-policies philox-kat
use_tmpdir
set -f # placements like S(0) are words, never patterns

# Scratch inputs: a corpus lacking threefry and rng-policies (another --golden), a right
# results file, a run's JSON (report's input) and a certify package (certify --check's).
mkdir "$tmp/g2"
set +f # (the glob is wanted here: under set -f this loop linked one entry named '*')
for d in "$G"/*; do
  case ${d##*/} in threefry|rng-policies|MANIFEST) ;; *) ln -s "$d" "$tmp/g2/${d##*/}" ;; esac
done
set -f
echo "another corpus" >"$tmp/g2/MANIFEST"
mkdir "$tmp/g3"
cp -R "$G/threefry" "$G/schemas" "$tmp/g3/" && write_manifest "$tmp/g3"
W=$(yes 1 | head -n 60000 | paste -sd, -)
printf '{"waivers": [{"family": "rng-policies", "tcIds": [16], "reason": "cli_options"}]}\n' >"$tmp/waivers.json"
if "$PY" -c 'import json' 2>/dev/null; then
  "$PY" "$tests_dir/golden_results.py" "$G" threefry "$tmp/cand.json"
else skip_all "no python3 at $PY (golden_results.py writes the candidate)"; fi
$S run --backend ref --family threefry --golden "$G" --max-cases 3 --json >"$tmp/run.json" 2>/dev/null
# (2 of threefry's cases: a partial claim, exit 3; anything else means no package)
(cd "$tmp" && $S certify --out pkg --golden "$G" --backend ref --families threefry --max-cases 2) >/dev/null 2>&1
[ $? -eq 3 ] || skip_all "certify could not write a package to check"

# MODES: command | mode | environment (or -) | base arguments.  @G@, @G2@, @C@ (the candidate),
# @WV@ (a waiver file),
# @R@ (the run's JSON), @P@ (the package), @G3@ (a corpus of threefry alone: a backend run of
# every family stays quick) and @W@ (60,000 multinomial weights) are filled in.  Every run's directory holds
# `golden` (the corpus), so a mode need not give --golden and --golden can be walked.
MODES='layout|every rank|-|--mesh 2x2 --placements S(0),R --shape 5,3
view|view|-|--mesh 2x2 --placements S(0),R --shape 4,6 --op view:24
groups|groups|-|--mesh 2x2
placement show|show|-|--placements S(0),_S(0,2)
placement shardable|shardable|-|--mesh 2x2 --placements S(0),R --shape 4,4
placement order|decode|-|--mesh 2x2 --placements _S(0,2),S(0)
placement order|encode|-|--mesh 2x2 --placements S(0)[1]S(0)[0]
placement global|info|-|--mesh 2x2 --placements S(0),R --local-shape 2,3
placement global|shapes|-|--mesh 4 --placements S(0) --local-shapes 2,3;2,3;1,3;1,3
groups|hsdp|-|--mesh 2x2 --placements S(0),R --hsdp-shard-dim 0
offsets|torch-offset|-|--mesh 2 --placements S(0) --shape 2000000
offsets|megatron-tp|-|--mesh 2 --placements S(0) --shape 2000000 --policy megatron-tp
offsets|--op exponential_|-|--mesh 2 --placements S(0) --shape 2000000 --op exponential_
policies|every policy|-|--json
policies|--policy megatron-tp|-|--policy megatron-tp
policies|--op exponential_|-|--op exponential_
ops|table|-|
trackers|list|-|
mesh-layout|layout|-|--layout (2,2):(4,1) --world 8
mesh-layout|mesh|-|--mesh 2x2x2 --dims 0,2
lifecycle|per rank|-|--mesh 2 --ranks 1,3 --world 4
lifecycle|philox|-|--philox 7,12
plan|greedy|-|--mesh 2x4 --shape 8,8 --src S(0),S(0) --dst R,R
plan|graph|-|--mesh 2x2x2 --shape 16,16 --src P(sum),P(sum),S(0) --dst R,R,S(1) --planner graph
plan|flattened|-|--mesh 2x4 --shape 8,8 --src S(0),S(0) --dst R,R --flatten 0+1
audit plan|greedy|-|--mesh 2x2 --shape 5,3 --src S(0),S(0) --dst R,R --flatten 0+1
audit plan|graph|-|--mesh 2x2 --shape 5,3 --src S(0),S(0) --dst R,R --flatten 0+1 --planner graph
rng|philox|-|--engine philox --blocks 2
rng|curand|-|--engine curand
rng|threefry|-|--engine threefry --shape 4
rng|torch-cuda uniform|-|--engine torch-cuda --op uniform --shape 300000
rng|torch-cuda normal|-|--engine torch-cuda --op normal --shape 300000
rng|torch-cuda log_normal|-|--engine torch-cuda --op log_normal --shape 300000
rng|torch-cuda random|-|--engine torch-cuda --op random --shape 300000 --dtype int64
rng|torch-cuda bernoulli|-|--engine torch-cuda --op bernoulli --shape 300000
rng|torch-cuda dropout|-|--engine torch-cuda --op dropout --shape 300000
rng|torch-cuda exponential|-|--engine torch-cuda --op exponential --shape 300000
rng|torch-cuda geometric|-|--engine torch-cuda --op geometric --shape 300000
rng|torch-cuda cauchy|-|--engine torch-cuda --op cauchy --shape 300000
rng|torch-cuda uniform --digest|-|--engine torch-cuda --op uniform --shape 300000 --digest
rng|torch-cuda randperm|-|--engine torch-cuda --op randperm --n 300000 --count 8
rng|torch-cuda randperm --digest|-|--engine torch-cuda --op randperm --n 300000 --digest
rng|torch-cuda multinomial|-|--engine torch-cuda --op multinomial --shape 60000 --values @W@ --n 3
rng|torch-cuda multinomial --replacement|-|--engine torch-cuda --op multinomial --shape 2,4 --values 1,2,0,5,4,0,2,2 --n 3 --replacement
rng|torch-cuda bernoulli_tensor|-|--engine torch-cuda --op bernoulli_tensor --shape 300000 --values 0.5 --p-shape 1 --count 8
audit rng|any tracked op|-|--mesh 4 --placements S(0) --shape 3
audit rng|--op exponential_|-|--mesh 4 --placements S(0) --shape 3 --op exponential_
explain|layout|-|--mesh 2 --placements S(0) --shape 3
explain|golden case|-|--family threefry --tcid 1
gen|generate|-|--family threefry --out g
gen|--list|-|--list
families|text|-|
families|--harness|-|--harness
families|--peers|-|--peers
registry|every section|-|
registry|releases|-|releases
registry|families|-|families
verify|text|-|--family threefry --candidate @C@
verify|--tap|-|--family threefry --candidate @C@ --tap
verify|--json|-|--family threefry --candidate @C@ --json
verify|--manifest|-|--manifest
run|ref|-|--backend ref --family rng-policies --max-cases 4
run|local|-|--backend local --family rng-policies --max-cases 4
run|mpi (a one-rank job)|-|--backend mpi --family threefry --max-cases 4
run|cuda (emulated)|SHARDCHECK_CUDA_EMULATE=a100|--backend cuda --family redistribute-data --max-cases 4
run|--json|-|--backend ref --family rng-policies --max-cases 4 --json
report|page|-|--out r.html @R@
certify|write|-|--out pkg --backend ref --families threefry --max-cases 2
certify|candidates only|SHARDCHECK_GOLDEN=@G3@|--out pkg --candidate @C@ --families threefry
certify|--check|-|--check @P@'

# VALUES: command | option | a value it takes (- for a flag); one per option of every command.
VALUES='view|mesh|2x3
view|torch-version|2.12
view|ranks|3,2,1,0
view|placements|R,S(1)
view|shape|8,3
view|op|view:4,6
view|json|-
layout|mesh|4
layout|ranks|3,2,1,0
layout|placements|R,S(1)
layout|shape|6,4
layout|rank|1
layout|json|-
layout|world|8
placement show|placements|S(1)
placement show|json|-
placement shardable|mesh|2x4
placement shardable|placements|S(1),R
placement shardable|shape|3,3
placement shardable|json|-
placement order|mesh|4x2
placement order|placements|S(0),S(0)
placement order|json|-
placement global|mesh|2x4
placement global|placements|S(1),R
placement global|local-shape|2,5
placement global|local-stride|1,2
placement global|local-shapes|3,3;3,3;3,3;3,3
placement global|json|-
groups|mesh|2x2x2
groups|ranks|3,2,1,0
groups|axes|0
groups|rank|1
groups|placements|S(0),R
groups|hsdp-shard-dim|1
groups|json|-
groups|world|8
offsets|mesh|4
offsets|ranks|1,0
offsets|placements|R
offsets|shape|4
offsets|rank|1
offsets|json|-
offsets|policy|jax-partitionable
offsets|seed|7
offsets|offset|8
offsets|gpu|t4
offsets|op|uniform_
offsets|torch-version|2.12
offsets|tracker|ThreadBasedRNGTracker
offsets|dtype|float64
offsets|world|4
policies|mesh|2
policies|ranks|1,0
policies|placements|S(0)
policies|shape|4
policies|rank|1
policies|json|-
policies|policy|megatron-dp
policies|seed|7
policies|offset|8
policies|gpu|t4
policies|op|uniform_
policies|torch-version|2.12
policies|tracker|ThreadBasedRNGTracker
policies|dtype|float64
policies|world|4
ops|json|-
trackers|json|-
mesh-layout|layout|8:1
mesh-layout|mesh|2x4
mesh-layout|ranks|7,6,5,4,3,2,1,0
mesh-layout|dims|1
mesh-layout|world|16
mesh-layout|json|-
mesh-layout|torch-version|2.12
lifecycle|mesh|4
lifecycle|ranks|3,1
lifecycle|world|6
lifecycle|rank|1
lifecycle|seed|5
lifecycle|device|cpu
lifecycle|philox|1,2
lifecycle|philox-bytes|00000000000000000100000000000000
lifecycle|json|-
ops|torch-version|2.15
plan|mesh|8
plan|ranks|7,6,5,4,3,2,1,0
plan|shape|16,16
plan|src|R,R
plan|dst|S(1),S(1)
plan|planner|graph
plan|dtype|int8
plan|devices-per-host|1
plan|no-merge|-
plan|flatten|0+1
plan|strided-literal|-
plan|rank|1
plan|json|-
plan|torch-version|2.15
plan|world|8
audit plan|mesh|8
audit plan|world|8
audit plan|ranks|7,6,5,4,3,2,1,0
audit plan|shape|16,16
audit plan|src|R,R
audit plan|dst|S(1),S(1)
audit plan|planner|graph
audit plan|dtype|int8
audit plan|devices-per-host|1
audit plan|no-merge|-
audit plan|flatten|0+1
audit plan|strided-literal|-
audit plan|rank|1
audit plan|torch-version|2.15
audit plan|json|-
rng|engine|curand
rng|seed|7
rng|key|1,2
rng|counter|1,2,3,4
rng|rounds|7
rng|blocks|2
rng|step|subseq
rng|subsequence|3
rng|offset|8
rng|call|uniform
rng|count|2
rng|start|1
rng|op|normal
rng|dtype|float64
rng|gpu|t4
rng|from|-1
rng|to|5
rng|mean|3
rng|std|0.5
rng|p|0.25
rng|lambd|3
rng|median|3
rng|sigma|0.5
rng|path|scalar
rng|digest|-
rng|n|5
rng|values|1,3
rng|p-shape|1
rng|p-dtype|float64
rng|replacement|-
rng|shape|8
rng|json|-
audit rng|mesh|2
audit rng|ranks|3,2,1,0
audit rng|placements|R
audit rng|shape|7
audit rng|rank|1
audit rng|json|-
audit rng|policy|megatron-tp
audit rng|seed|7
audit rng|offset|8
audit rng|gpu|t4
audit rng|op|uniform_
audit rng|dtype|float64
audit rng|world|4
audit rng|torch-version|2.12
audit rng|tracker|ThreadBasedRNGTracker
explain|mesh|4
explain|ranks|1,0
explain|world|4
explain|placements|R
explain|shape|7
explain|op|uniform
explain|svg|p.svg
explain|torch-version|2.15
explain|family|threefry
explain|tcid|2
explain|candidate|@C@
explain|golden|@G2@
gen|family|philox-kat
gen|out|g2
gen|list|-
gen|quiet|-
families|golden|@G2@
families|markdown|-
families|harness|-
families|peers|-
families|json|-
registry|json|-
registry|names|-
registry|capable|harness
registry|golden|@G2@
verify|family|philox-kat
verify|candidate|@C@
verify|golden|@G2@
verify|tap|-
verify|junit|j.xml
verify|json|-
verify|verbose|-
verify|manifest|-
verify|torch-version|2.15
verify|tcid|1
verify|flag|EmptyTensor
verify|answered|-
verify|waivers|@WV@
run|backend|local
run|family|philox-kat
run|golden|@G2@
run|tap|-
run|junit|j.xml
run|json|-
run|timeout|30
run|max-cases|1
run|max-cases-of|threefry=2
run|max-ranks|1
run|verbose|-
run|journal|jr.txt
run|views|vw.txt
run|no-manifest-check|-
run|torch-version|2.15
run|waivers|@WV@
report|out|r2.html
report|golden|@G2@
report|no-manifest-check|-
report|torch-version|2.15
certify|out|pkg2
certify|golden|@G2@
certify|backend|local
certify|families|philox-kat
certify|np|1,2
certify|candidate|@C@
certify|name|someone
certify|max-cases|1
certify|timeout|30
certify|check|@P@
certify|torch-version|2.15
certify|waivers|@WV@'

# ALLOW: command | option | mode | why one quick run cannot show it (and where it is shown).
ALLOW='rng|path|philox|selects the implementation (scalar, AVX2, AVX-512), which gives the same words by design (cli_rng.sh compares them; a path this CPU lacks is refused)
run|timeout|*|a per-case limit acts only on a case that runs past it (run_faults.sh: a hung rank is Timeout within --timeout)
certify|timeout|*|passed to each run child as its per-case limit (certify.sh, run_faults.sh)
audit plan|planner|greedy|the greedy and the graph planner give the same findings on this layout (plan shows which one runs)
rng|dtype|torch-cuda multinomial --replacement|the input'"'"'s dtype: the weights must be exact in it and torch rejects an integer one (cli_rng.sh); exact weights draw the same
rng|p-dtype|torch-cuda bernoulli_tensor|p'"'"'s dtype: p'"'"'s values must be exact in it and torch rejects a non-floating one (cli_rng.sh); with a p exact in both, the draws are the same
audit plan|dtype|*|prices the graph planner'"'"'s moves and names a complex Partial reduce-scattered part by part: the audit shows it only when a finding changes (cli_plan.sh: ComplexReduceScatter on complex64 and not on float32; plan shows the path it picks)
audit plan|devices-per-host|graph|the same as --dtype: the cost model'"'"'s host size
verify|answered|*|leaves out the tests the candidate does not answer: this candidate answers every test, so only stderr'"'"'s count (0) shows it (verify_select.sh checks a partial one)
run|no-manifest-check|*|skips the corpus check, which an intact corpus passes anyway: it shows only on a tampered one, and in the warning on stderr (io_lifecycle.sh runs a tampered corpus with it)
report|no-manifest-check|*|the same as run'"'"'s (io_lifecycle.sh)'

nl='
'
fill() { # the placeholders of a table field
  f=$1
  case $f in *@W@*) f="${f%%@W@*}$W${f#*@W@}" ;; esac
  printf '%s' "$f" | sed -e "s|@G2@|$tmp/g2|g" -e "s|@G3@|$tmp/g3|g" -e "s|@G@|$G|g" \
    -e "s|@C@|$tmp/cand.json|g" -e "s|@R@|$tmp/run.json|g" -e "s|@P@|$tmp/pkg|g" -e "s|@WV@|$tmp/waivers.json|g"
}
norm() { # what differs between two runs of the same command
  sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}/TIME/g' \
    -e 's/"seconds": ?[-0-9.e+]+/"seconds":S/g' -e 's/time="[0-9.]+"/time="T"/g' \
    -e 's#<th>command</th><td>[^<]*</td>#COMMAND#g' \
    -e 's/"(argv|command|host|hostname|pid)": ?("[^"]*"|\[[^]]*\]|[0-9]+)/"\1":X/g'
}
# run DIR ENV CMD ARGS...: CMD run in a fresh DIR; $DIR/.fp is its fingerprint
run() {
  d=$1; e=$2; shift 2
  rm -rf "$d"; mkdir -p "$d"
  ln -s "$G" "$d/golden"
  if [ "$e" = - ]; then (cd "$d" && "$S" "$@" >.out 2>.err; echo $? >.rc)
  else (cd "$d" && env "$e" "$S" "$@" >.out 2>.err; echo $? >.rc); fi
  (cd "$d" && { cat .rc; norm <.out
     find . -type f ! -name .out ! -name .err ! -name .rc ! -name .fp | LC_ALL=C sort |
     while read -r f; do echo "== $f"; norm <"$f"; done
   } >.fp)
  if [ "$1" = certify ]; then # a package hashes files holding times: compare what they name
    sed -E 's/^[0-9a-f]{64}  /HASH  /; s/[0-9a-f]{64}/HASH/g' "$d/.fp" >"$d/.fp2" && mv "$d/.fp2" "$d/.fp"
  fi
}

cmds=$($S --list-commands)
IFS=$nl
for c in $cmds; do
  opts=$(IFS=' '; $S $c --help | grep -E '^  --[a-z0-9-]+' | awk '{print substr($1, 3)}' | grep -vx help)
  [ -n "$opts" ] || { tap_skip "$c: options walked" "$c has only --help"; continue; }
  for o in $opts; do
    printf '%s\n' "$VALUES" | grep -q "^$c|$o|" || tap_not_ok "$c --$o has a sample value in VALUES"
  done
  printf '%s\n' "$MODES" | grep -q "^$c|" || { tap_not_ok "$c has a mode in MODES"; continue; }
  # sampled (the ASan and distcheck make checks, testlib.sh): each command's first mode, every
  # option of it walked; the plain build walks every mode (issue 36: CI time)
  for line in $(printf '%s\n' "$MODES" | grep "^$c|" | if sampled; then head -n 1; else cat; fi); do
    mode=$(printf '%s' "$line" | cut -d'|' -f2)
    env=$(fill "$(printf '%s' "$line" | cut -d'|' -f3)")
    base=$(fill "$(printf '%s' "$line" | cut -d'|' -f4)")
    IFS=' '
    # shellcheck disable=SC2086  # base and $c are word lists
    run "$tmp/w/base" "$env" $c $base
    rc=$(cat "$tmp/w/base/.rc")
    if [ "$rc" = 77 ]; then
      tap_skip "$c ($mode)" "$(cat "$tmp/w/base/.err" "$tmp/w/base/.out" | grep . | tail -n 1)"
      IFS=$nl; continue
    elif [ "$rc" != 0 ] && [ "$rc" != 1 ] && { [ "$c" != certify ] || [ "$rc" != 3 ]; }; then
      # (certify's exit 3 is a verdict: PARTIAL)
      tap_not_ok "$c ($mode): the base command runs" "exit $rc: $c $base" "$(head -c 300 "$tmp/w/base/.err")"
      IFS=$nl; continue
    fi
    acted=""; refused=""; bad=0
    for o in $(printf '%s\n' "$opts" | tr '\n' ' '); do
      case " $base " in *" --$o "*) continue ;; esac   # the mode gives it
      v=$(printf '%s\n' "$VALUES" | grep "^$c|$o|" | head -n 1 | cut -d'|' -f3-)
      [ -n "$v" ] || continue
      v=$(fill "$v")
      # shellcheck disable=SC2086
      if [ "$v" = - ]; then run "$tmp/w/opt" "$env" $c $base "--$o"
      else run "$tmp/w/opt" "$env" $c $base "--$o" "$v"; fi
      orc=$(cat "$tmp/w/opt/.rc")
      if [ "$orc" = 2 ] && grep -Eq -- "--$o([^a-z0-9-]|$)" "$tmp/w/opt/.err"; then
        refused="$refused --$o"
      elif [ "$orc" = 2 ] && [ "$rc" != 2 ] && { [ "$v" = - ] || ! grep -qF -- "$v" "$tmp/w/opt/.err"; }; then
        bad=$((bad+1)) # an error that names neither the option nor its value
        tap_not_ok "$c ($mode): --$o $v is refused naming it" "$(head -c 300 "$tmp/w/opt/.err")"
      elif ! cmp -s "$tmp/w/base/.fp" "$tmp/w/opt/.fp"; then
        acted="$acted --$o"
      else
        why=$(printf '%s\n' "$ALLOW" | while IFS='|' read -r ac ao am aw; do
          [ "$ac|$ao" = "$c|$o" ] || continue
          # shellcheck disable=SC2254  # am is a pattern
          case $mode in $am) echo "$aw" ;; esac
        done | head -n 1)
        if [ -n "$why" ]; then acted="$acted --$o(allowed: not visible here)"
        else
          bad=$((bad+1))
          tap_not_ok "$c ($mode): --$o $v acts or is refused by name" \
            "ignored: exit $orc, same output and files as without it" "$(head -c 300 "$tmp/w/opt/.err")"
        fi
      fi
    done
    [ $bad -eq 0 ] && tap_ok "$c ($mode): acts:${acted:- none}; refused:${refused:- none}"
    IFS=$nl
  done
done
IFS=' '
# The table itself must not go stale: every option it names is one the command has.
stale=$(printf '%s\n' "$VALUES" | while IFS='|' read -r c o v; do
  # shellcheck disable=SC2086  # "audit rng" is two words
  (IFS=' '; $S $c --help) | grep -Eq -- "^  --$o( |$)" || echo "$c --$o"
done)
if [ -z "$stale" ]; then tap_ok "every option VALUES names is one its command has"
else tap_not_ok "every option VALUES names is one its command has" "$stale"; fi
tap_done
