#!/bin/sh
# cli_torch_version_all.sh — no command silently ignores --torch-version or
# SHARDCHECK_TORCH_VERSION (issue 34 item 2).
#
# The commands are read from the CLI's own table (`shardcheck --list-commands`), and each
# one's --help says which kind it is:
#  - it lists `--torch-version V`: its answer can differ between releases.  Every such
#    command must have a row in QUERIES below (a new command without one fails here), whose
#    query answers differently in two releases, by --torch-version and by the env variable;
#    the commands that judge a golden corpus (verify, run, report, certify) are proved by
#    torch_version.sh, which this test checks still walks each of them;
#  - it says "no --torch-version": its answers are the same in every release
#    (docs/torch-releases.md, "No difference found"); the option is refused by name, exit 2,
#    and the env variable is not read (even a bad spelling changes nothing).
#
# The expected answers come from docs/torch-releases.md's table (the torch source lines each
# row cites), not from shardcheck's output:
#  - ShardToPartialStep: 2.14/2.15 run S(0) -> P(sum) as one zero-filling local step;
#    2.13's redistribute_local_tensor raises RuntimeError for it (plan refuses it so, exit 2).
#  - MultinomialNoStrategy: 2.11/2.12 have no sharding strategy for aten.multinomial;
#    2.13 registers one (untracked: each rank's own generator).
#  - ExponentialNoStrategy: 2.11 has none for exponential_; 2.12 registers a pointwise one.
#  - DecomposedRandomOp: 2.12's log_normal_ keeps only shardable layouts (a dim of 1 on 2
#    shards is not), an in-place op cannot redistribute; 2.13 allows uneven sharding.
#  - MeshLayoutLegacy: 2.11/2.12 keep a mesh dim as _MeshLayout(Layout) (check_non_overlap);
#    2.13's _FlatLayout.check_orthogonal divides by zero on a stride-0 mode.
#  - FlattenSplitRaises: 2.12 raises for a plain Shard on a non-first dim of a flatten that is
#    split (pytorch#179502's view(16, 6)); 2.13 replicates it first.
. "$(dirname "$0")/testlib.sh"

# name|arguments|release A|what A says (ERE)|release B|what B says (ERE)
QUERIES='plan|--mesh 2 --shape 4 --src S(0) --dst P(sum)|2.13|RuntimeError: redistribute from S\(0\) to P\(sum\) not supported yet|2.15|0 +S\(0\) +P\(sum\) +4 +zero_fill
audit plan|--mesh 2 --shape 4 --src S(0) --dst P(sum)|2.13|^1 finding \(torch 2.13\)|2.15|^0 findings \(torch 2.15\)
ops|--json|2.12|"name":"multinomial","api":[^}]*"dispatch":"rejected"|2.13|"name":"multinomial","api":[^}]*"dispatch":"untracked"
offsets|--mesh 2 --placements S(0) --shape 4,4 --op multinomial|2.12|does not have a sharding strategy registered|2.13|^op multinomial: untracked in torch 2.13
policies|--op multinomial|2.12|does not have a sharding strategy registered|2.13|^torch 2.13 running multinomial \(untracked
audit rng|--mesh 2 --placements S(0) --shape 1,4 --op log_normal_|2.12|in-place operations that require placement changes are not supported|2.13|^2 distinct shards
explain|--mesh 2 --placements S(0) --shape 4 --op exponential_|2.11|exponential_.default does not have a sharding strategy registered|2.12|untracked in torch 2.12
mesh-layout|--layout (2,3):(0,1)|2.12|torch 2.12 \(.*\): not modelled \(MeshLayoutLegacy|2.13|ZeroDivisionError: integer modulo by zero
view|--mesh 4 --placements S(1) --shape 12,8 --op view:16,6|2.12|is not supported yet for non-first flatten dims|2.13|^torch 2.13 rule: redistribute input to R, output R'
# the commands that judge a golden corpus: torch_version.sh gives each a candidate whose
# answers differ between releases
CORPUS='verify run report certify'

# run "$cmd" (one or two words) with the query's arguments and more; output on stdout
ask() { c=$1; q=$2; shift 2
  # shellcheck disable=SC2086  # the query's words are split on purpose
  "$S" $c $q "$@" 2>&1; }

cmds=$("$S" --list-commands) || { tap_not_ok "--list-commands"; tap_done; exit 1; }
ndep=0 nind=0
while IFS= read -r c; do
  [ -n "$c" ] || continue
  # shellcheck disable=SC2086
  help=$("$S" $c --help 2>&1)
  if printf '%s\n' "$help" | grep -q -- '--torch-version V'; then
    ndep=$((ndep+1))
    case " $CORPUS " in *" $c "*)
      if grep -q -- "$c .*--torch-version" "$tests_dir/torch_version.sh"; then
        tap_ok "$c: release-dependent, judged by release in torch_version.sh"
      else tap_not_ok "$c: takes --torch-version but torch_version.sh no longer walks it"; fi
      continue;;
    esac
    row=$(printf '%s\n' "$QUERIES" | grep "^$c|") || {
      tap_not_ok "$c: takes --torch-version but has no query here answering differently"; continue; }
    q=$(printf %s "$row" | cut -d'|' -f2)
    for side in 3 5; do
      v=$(printf %s "$row" | cut -d'|' -f$side)
      re=$(printf %s "$row" | cut -d'|' -f$((side+1)))
      other=$(printf %s "$row" | cut -d'|' -f$((side == 3 ? 6 : 4)))
      for how in option env; do
        if [ $how = option ]; then out=$(ask "$c" "$q" --torch-version "$v")
        else out=$(SHARDCHECK_TORCH_VERSION=$v ask "$c" "$q"); fi
        if printf '%s\n' "$out" | grep -Eq -- "$re" && ! printf '%s\n' "$out" | grep -Eq -- "$other"
        then tap_ok "$c: torch $v's answer by $how"
        else tap_not_ok "$c: torch $v's answer by $how" "want /$re/, not /$other/" \
          "got: $(printf %s "$out" | head -c 400)"; fi
      done
    done
  elif printf '%s\n' "$help" | grep -q "^no --torch-version (its answers are the same in every"
  then
    nind=$((nind+1))
    expect_exit "$c: --torch-version refused by name" 2 \
      "^shardcheck $c: --torch-version: not taken by $c \(its answers are the same in every torch release 2.11-2.15" \
      "$S" $c --torch-version 2.12
    # the env variable is not read: a spelling every reader refuses changes nothing
    a=$("$S" $c --help 2>&1); b=$(SHARDCHECK_TORCH_VERSION=2.99 "$S" $c --help 2>&1)
    [ "$a" = "$b" ] && tap_ok "$c: SHARDCHECK_TORCH_VERSION not read" ||
      tap_not_ok "$c: SHARDCHECK_TORCH_VERSION not read"
  else
    tap_not_ok "$c: --help neither lists --torch-version nor says why it has none"
  fi
done <<EOF
$cmds
EOF

# a layout answered with a bad env spelling: not read, the same answer as without
expect_out "layout ignores SHARDCHECK_TORCH_VERSION=2.99 (documented: not read)" \
  "$("$S" layout --mesh 2 --placements 'S(0)' --shape 4 2>&1)" \
  env SHARDCHECK_TORCH_VERSION=2.99 "$S" layout --mesh 2 --placements 'S(0)' --shape 4
# the release-dependent commands without --op do not depend on it: refused, as explain does
expect_exit "offsets --torch-version without --op: refused by name" 2 \
  "not used without --op" "$S" offsets --mesh 2 --placements 'S(0)' --shape 4 --torch-version 2.15
expect_exit "policies --torch-version without --op: refused by name" 2 \
  "not used without --op" "$S" policies --torch-version 2.15
expect_exit "offsets --op --torch-version 2.16: exit 2 listing the releases" 2 \
  "supported: 2.11" "$S" offsets --mesh 2 --placements 'S(0)' --shape 4 --op normal_ \
  --torch-version 2.16
[ "$ndep" -ge 11 ] && [ "$nind" -ge 5 ] && tap_ok "walked $ndep release-dependent, $nind other" ||
  tap_not_ok "too few commands walked: $ndep release-dependent, $nind other"
tap_done
