#!/bin/sh
# cli_torch_input.sh — the CLI takes the placements torch 2.13 takes (issue 34 item 1): any
# reduce-op string in Partial, negative shard dims counted from the end, and refuses what
# torch refuses, naming torch's error.
#
# Every expected value below is what real torch 2.13.0+cpu answered on 2026-11-28 (a gloo
# world of 4 CPU processes, tools/harness/tests/torch_input_worker.py; the same cases are
# re-asked of torch and compared with the CLI by tools/harness/tests/test_torch_input.py):
#   Partial("prod")            str P(prod), repr Partial(prod) (any string is accepted)
#   P(prod) -> R / S(0)        RuntimeError: Unrecognized reduce_op: prod (c10d, at the step)
#   P(PROD) -> S(0)            RuntimeError: Unrecognized reduce_op: prod (funcol lowers it)
#   P(Sum) -> R                runs (reduces as sum); P(Sum) -> P(sum): AssertionError
#   R -> P(product), P(Sum)    ValueError: Replicate to Partial(product|Sum) conversion is
#                              not supported.   R -> P(avg): runs
#   P(prod),P(max) / P(Sum),P(sum)   ValueError: Mixed Partial reduce types ...
#   mesh 2x2, shape [6, 8], redistribute from R,R to:
#     S(-1),R          -> S(1),R          local [6,4] on every rank
#     S(-2),S(-1)      -> S(0),S(1)       local [3,4] on every rank
#     _S(-2, 2),S(-2)  -> _S(0, 2),S(0)   local [2,8] [2,8] [1,8] [1,8]
#     _S(-1, 2),S(1)   -> _S(1, 2),S(1)   local [6,2] on every rank
#     S(-3),R          AssertionError: Shard dim -1 in placements (...) must be normalized
#     R,S(2)           IndexError: Dimension out of range (expected to be in range of [-2, 1],
#                      but got 2)
#     _S(-3, 2),R      IndexError: list index out of range
#   from_local with P(prod),S(-1) -> P(prod),S(1)
# and what gloo's collectives refuse of the elements (2026-12-01, torch 2.13.0+cpu, a gloo
# world of 2 and then of 4 CPU processes redistributing a DTensor of the dtype; 2.15.0 the same
# except where said; lib/plan/gloo_dtype.c):
#   P(band|bor|bxor) -> R or S(0), float32/64, float16, bfloat16:
#                              RuntimeError: Cannot use ReduceOp.BAND with non-integral dtype
#   the same on int8/32/64, uint8, bool: runs
#   P(band|max|min|product) -> R, complex64/128: RuntimeError: all_reduce: reduce_op band does
#                              not support complex tensors (2.15.0: an INTERNAL ASSERT);
#   P(band) -> S(0), complex:  Cannot use ReduceOp.BAND with non-integral dtype;
#   P(max) -> S(0), complex64 and P(avg) -> R, complex64: run
#   P(avg) -> R or S(0), int8/32/64, uint8, bool: RuntimeError: result type Float can't be
#                              cast to the desired output type Char|Int|Long|Byte|Bool
#   any step that moves data, int16 or float8_*: RuntimeError: Invalid scalar type;
#   R -> S(0) on int16: runs (a local chunk)
. "$(dirname "$0")/testlib.sh"

# every rank's local shape, in rank order, from `layout --json`
shapes() { "$S" "$@" --json | grep -o '"localShape":\[[0-9,]*\]' | sed 's/"localShape"://' |
  tr '\n' ' '; }
head1() { "$S" "$@" | head -n 1; }

# ---- negative shard dims: normalised as distribute_tensor / redistribute do, printed so ----
expect_out "layout S(-1),R prints S(1),R" "mesh 2x2  placements S(1),R  shape [6,8]" \
  head1 layout --mesh 2x2 --placements 'S(-1),R' --shape 6,8
expect_out "layout S(-1),R: torch's local shapes" "[6,4] [6,4] [6,4] [6,4] " \
  shapes layout --mesh 2x2 --placements 'S(-1),R' --shape 6,8
expect_out "layout S(-2),S(-1) prints S(0),S(1)" "mesh 2x2  placements S(0),S(1)  shape [6,8]" \
  head1 layout --mesh 2x2 --placements 'S(-2),S(-1)' --shape 6,8
expect_out "layout S(-2),S(-1): torch's local shapes" "[3,4] [3,4] [3,4] [3,4] " \
  shapes layout --mesh 2x2 --placements 'S(-2),S(-1)' --shape 6,8
expect_out "layout _S(-2, 2),S(-2) prints _S(0, 2),S(0)" \
  "mesh 2x2  placements _S(0, 2),S(0)  shape [6,8]" \
  head1 layout --mesh 2x2 --placements '_S(-2, 2),S(-2)' --shape 6,8
expect_out "layout _S(-2, 2),S(-2): torch's local shapes" "[2,8] [2,8] [1,8] [1,8] " \
  shapes layout --mesh 2x2 --placements '_S(-2, 2),S(-2)' --shape 6,8
expect_out "layout _S(-1, 2),S(1): torch's local shapes" "[6,2] [6,2] [6,2] [6,2] " \
  shapes layout --mesh 2x2 --placements '_S(-1, 2),S(1)' --shape 6,8
expect_out "layout P(prod),S(-1) prints P(prod),S(1)" \
  "mesh 2x2  placements P(prod),S(1)  shape [6,8]" \
  head1 layout --mesh 2x2 --placements 'P(prod),S(-1)' --shape 6,8
expect_out "offsets print S(-1),R as S(1),R" \
  "policy torch-offset  mesh 2x2  placements S(1),R  shape 6,8  seed 0  offset 0" \
  head1 offsets --mesh 2x2 --placements 'S(-1),R' --shape 6,8
expect_out "plan prints S(-1) -> S(0) as S(1) -> S(0)" \
  "redistribute plan: mesh 4, shape [8,4], S(1) -> S(0) (torch 2.13)" \
  head1 plan --mesh 4 --shape 8,4 --src 'S(-1)' --dst 'S(0)'

# ---- dims out of range after normalisation: exit 2 with torch's refusal ----
expect_exit "S(-3) on a 2-d tensor: torch's AssertionError" 2 \
  "--placements: placement 0 'S\(-3\)': shard dim -3 out of range for a 2-d tensor \(torch 2.13 normalises it to -1, then raises AssertionError: Shard dim -1 in placements \.\.\. must be normalized\)" \
  $S layout --mesh 2x2 --placements 'S(-3),R' --shape 6,8
expect_exit "S(2) on a 2-d tensor: refused, as torch's IndexError" 2 \
  "placement 1 'S\(2\)': shard dim 2 out of range for a 2-d tensor" \
  $S layout --mesh 2x2 --placements 'R,S(2)' --shape 6,8
expect_exit "_S(-3, 2) on a 2-d tensor: torch's IndexError" 2 \
  "shard dim -3 out of range for a 2-d tensor \(torch 2.13 normalises it to -1, then redistribute raises IndexError: list index out of range\)" \
  $S layout --mesh 2x2 --placements '_S(-3, 2),R' --shape 6,8
expect_exit "plan --dst S(-3): torch's refusal, named" 2 "--dst: placement 0 'S\(-3\)'.*AssertionError" \
  $S plan --mesh 4 --shape 8,4 --src R --dst 'S(-3)'
expect_exit "offsets S(-3): torch's refusal, named" 2 "placement 0 'S\(-3\)'.*AssertionError" \
  $S offsets --mesh 2x2 --placements 'S(-3),R' --shape 6,8
expect_exit "S(-9): past any tensor's rank here" 2 "shard dim -9 out of range -8..7" \
  $S layout --mesh 2 --placements 'S(-9)' --shape 6
expect_exit "a negative dim in the trace form" 2 "a negative dim in the trace form" \
  $S layout --mesh 2x2 --placements 'S(-1)[1]S(-1)[0]' --shape 6,8

# ---- any reduce-op string in Partial ----
expect_exit "P(prod) -> R: planned as torch plans it, and torch's RuntimeError" 0 \
  "torch raises at step 0: RuntimeError: Unrecognized reduce_op: prod " \
  $S plan --mesh 4 --shape 8,4 --src 'P(prod)' --dst R
expect_exit "P(prod) -> R: the step is torch's all_reduce" 0 "^  0 +0 +P\(prod\) +R +8,4 +all_reduce$" \
  $S plan --mesh 4 --shape 8,4 --src 'P(prod)' --dst R
expect_exit "P(PROD) -> S(0): funcol lowers the string" 0 \
  "torch raises at step 0: RuntimeError: Unrecognized reduce_op: prod \(P\(PROD\)" \
  $S plan --mesh 4 --shape 8,4 --src 'P(PROD)' --dst 'S(0)'
expect_exit "P(prod) -> R --json: torchRaises" 0 \
  '"torchRaises":\{"step":0,"error":"RuntimeError: Unrecognized reduce_op: prod ' \
  $S plan --mesh 4 --shape 8,4 --src 'P(prod)' --dst R --json
expect_out "P(Sum) -> R runs (reduces as sum): no refusal" \
"redistribute plan: mesh 4, shape [8,4], P(Sum) -> R (torch 2.13)
ranks 0,1,2,3:
  planner greedy, 1 step, 1 collective
  step mesh_dim  src        dst        logical_shape    comm
  0    0         P(Sum)     R          8,4              all_reduce
  redistribute_cost (torch's, the strategies' price, us): 10.20203892741535
  trace: P(Sum)->R" \
  $S plan --mesh 4 --shape 8,4 --src 'P(Sum)' --dst R
expect_exit "P(Sum) -> P(sum): the strings differ, torch's AssertionError at the step" 2 \
  "step 0 \(mesh dim 0\): AssertionError: Redistribution from one partial type \(P\(Sum\)\) to another \(P\(sum\)\) is unsupported." \
  $S plan --mesh 4 --shape 8,4 --src 'P(Sum)' --dst 'P(sum)'
expect_exit "R -> P(product): torch's ValueError" 0 \
  "torch raises at step 0: ValueError: Replicate to Partial\(product\) conversion is not supported\.$" \
  $S plan --mesh 4 --shape 8,4 --src R --dst 'P(product)'
expect_exit "R -> P(Sum): torch compares the string exactly" 0 \
  "torch raises at step 0: ValueError: Replicate to Partial\(Sum\) conversion is not supported\." \
  $S plan --mesh 4 --shape 8,4 --src R --dst 'P(Sum)'
out=$($S plan --mesh 4 --shape 8,4 --src R --dst 'P(avg)' 2>&1)
case $out in *"torch raises"*) tap_not_ok "R -> P(avg) runs in torch" "$out" ;;
  *) tap_ok "R -> P(avg) runs in torch" ;; esac
expect_out "P(prod) -> P(prod): nothing to do, as torch" \
"redistribute plan: mesh 4, shape [8,4], P(prod) -> P(prod) (torch 2.13)
ranks 0,1,2,3:
  planner greedy, 0 steps, 0 collectives
  redistribute_cost (torch's, the strategies' price, us): 0
  trace: P(prod)" \
  $S plan --mesh 4 --shape 8,4 --src 'P(prod)' --dst 'P(prod)'
expect_exit "P(prod),P(max): torch's mixed-partial refusal" 2 \
  "Mixed Partial reduce types are not supported in the same placement list\. Found reduce ops: \{'prod', 'max'\}" \
  $S plan --mesh 2x2 --shape 8,4 --src 'P(prod),P(max)' --dst R,R
expect_exit "P(Sum),P(sum): mixed for torch (the strings differ)" 2 \
  "Found reduce ops: \{'Sum', 'sum'\}" \
  $S plan --mesh 2x2 --shape 8,4 --src 'P(Sum),P(sum)' --dst R,R
expect_exit "P(prod),P(prod) on 2x2: the graph planner explores P(prod)" 0 \
  "trace: P\(prod\)P\(prod\)->RP\(prod\)->RR" \
  $S plan --mesh 2x2 --shape 8,4 --src 'P(prod),P(prod)' --dst R,R --planner graph
expect_out "quoted reduce op with a space prints as torch's str" \
  "mesh 2  placements P( a b)  shape [4]" \
  head1 layout --mesh 2 --placements "P(' a b')" --shape 4
expect_exit "an unterminated quote is refused" 2 "missing closing ' after reduce op" \
  $S layout --mesh 2 --placements "P('prod" --shape 4
expect_exit "a reduce op over shardcheck's limit is refused" 2 "longer than 31 characters" \
  $S layout --mesh 2 --placements "P(abcdefghijabcdefghijabcdefghijab)" --shape 4

# ---- what gloo refuses of the elements (--dtype; torch's default float32 without it) ----
raises() { # name, expected "torch raises" text or "" for none, plan arguments
  name=$1 want=$2; shift 2
  got=$("$S" plan --mesh 4 --shape 8,4 "$@" 2>&1 | grep "torch raises" | sed 's/^ *//; s/ (.*//')
  if [ "$got" = "$want" ]; then tap_ok "$name"; else tap_not_ok "$name" "got '$got'"; fi
}
nonint="torch raises at step 0: RuntimeError: Cannot use ReduceOp"
raises "P(band) -> R on the default float32" "$nonint.BAND with non-integral dtype" \
  --src 'P(band)' --dst R
for dt in float64 float16 bfloat16; do
  raises "P(bor) -> S(0) on $dt" "$nonint.BOR with non-integral dtype" \
    --src 'P(bor)' --dst 'S(0)' --dtype $dt
done
for dt in int8 int32 int64 uint8 bool; do
  raises "P(bxor) -> R on $dt runs" "" --src 'P(bxor)' --dst R --dtype $dt
done
for op in band max min product; do
  raises "P($op) -> R on complex64: funcol's all_reduce refuses" \
    "torch raises at step 0: RuntimeError: all_reduce: reduce_op $op does not support complex tensors" \
    --src "P($op)" --dst R --dtype complex64
done
raises "P(band) -> S(0) on complex128" "$nonint.BAND with non-integral dtype" \
  --src 'P(band)' --dst 'S(0)' --dtype complex128
raises "P(max) -> S(0) on complex64 runs (reduce_scatter takes it)" "" \
  --src 'P(max)' --dst 'S(0)' --dtype complex64
raises "P(avg) -> R on complex64 runs" "" --src 'P(avg)' --dst R --dtype complex64
for pair in int8:Char int32:Int int64:Long uint8:Byte bool:Bool; do
  raises "P(avg) -> S(0) on ${pair%:*}: gloo's float quotient" \
    "torch raises at step 0: RuntimeError: result type Float can't be cast to the desired output type ${pair#*:}" \
    --src 'P(avg)' --dst 'S(0)' --dtype "${pair%:*}"
done
raises "P(avg) -> R on float16 runs" "" --src 'P(avg)' --dst R --dtype float16
for dt in int16 short float8_e4m3fn float8_e5m2; do
  raises "S(0) -> R on $dt: gloo carries none" "torch raises at step 0: RuntimeError: Invalid scalar type" \
    --src 'S(0)' --dst R --dtype $dt
done
raises "S(0) -> S(1) on int16" "torch raises at step 0: RuntimeError: Invalid scalar type" \
  --src 'S(0)' --dst 'S(1)' --dtype int16
raises "R -> S(0) on int16 runs (a local chunk)" "" --src R --dst 'S(0)' --dtype int16
expect_exit "the step torch raises at on 2x2 (S(0),P(avg) -> R,R, int32: the all_reduce first)" 0 \
  "torch raises at step 0: RuntimeError: result type Float can't be cast to the desired output type Int" \
  $S plan --mesh 2x2 --shape 8,4 --src 'S(0),P(avg)' --dst R,R --dtype int32
expect_exit "--json names it too" 0 \
  '"torchRaises":\{"step":0,"error":"RuntimeError: Cannot use ReduceOp.BAND with non-integral dtype' \
  $S plan --mesh 4 --shape 8,4 --src 'P(band)' --dst R --json

tap_done
