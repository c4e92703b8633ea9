#!/bin/sh
# cli_offsets.sh — `shardcheck offsets`, `audit rng` and `policies`: the issue's
# worked examples (values derived by hand from torch 2.13's _random.py, see
# check_offsets.c) and every bad-input path, each asserting its message.
. "$(dirname "$0")/testlib.sh"
EX="--mesh 2x2x2 --placements S(1),R,S(0) --shape 8,16"

# 1. torch 2.13 start increments 0,64,0,64,32,96,32,96 and end 128, one rank at a time.
want="0 64 0 64 32 96 32 96"
got=""
for r in 0 1 2 3 4 5 6 7; do
  v=$($S offsets $EX --rank $r --json | sed -n 's/.*"start_incr":"\([0-9]*\)".*/\1/p')
  got="$got${got:+ }$v"
done
if [ "$got" = "$want" ]; then tap_ok "offsets: docstring example start increments"
else tap_not_ok "offsets: docstring example start increments" "got '$got'" "want '$want'"; fi
expect_exit "offsets: end increment 128 on every rank" 0 '"end_incr":"128".*"end_incr":"128"' \
  $S offsets $EX --json
expect_exit "offsets: --offset moves start and post" 0 '"start_offset":"1064","post_offset":"1128"' \
  $S offsets $EX --rank 1 --offset 1000 --json
expect_exit "offsets: text table" 0 "policy torch-offset" $S offsets $EX
expect_exit "offsets: the vendor port diverges (rank 1 starts at 4, ends at 8)" 0 \
  '"start_offset":"4","post_offset":"8"' $S offsets $EX --policy hyper-parallel --rank 1 --json
expect_exit "offsets: megatron tp seed = seed + 2718 + tp_rank" 0 '"seed":"3719"' \
  $S offsets --mesh 2x2 --placements R,S\(0\) --shape 8,8 --policy megatron-tp --seed 1000 --rank 3 --json

# rank 0 sits at coord (1,1): shard 3; first shard = chunk(16 global, 2) = 8, start 3*8 = 24
expect_exit "offsets: a rank map moves shards to other ranks" 0 \
  '"rank":0,"coord":\[1,1\],"shard_linear_index":3,"start_incr":"24"' \
  $S offsets --mesh 2x2 --ranks 3,2,1,0 --placements 'S(0),S(0)' --shape 16 --rank 0 --json

# 2. audit: findings are reported with exit 0.
expect_exit "audit: tiny tensor, ranks 1 and 2 start at 4" 0 \
  "OffsetSameStart +ranks 1 and 2 .*windows \[4, 5\) and \[4, 5\)" \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 3
expect_exit "audit: nested S(0),S(0) overruns end_incr 8" 0 \
  "OffsetOverrun +rank 2 window \[8, 10\) runs past end_incr 8" \
  $S audit rng --mesh 2x2 --placements 'S(0),S(0)' --shape 8
expect_exit "audit: rank 3 spills [12, 14) into the next op" 0 \
  "rank 3 window \[12, 14\) runs past end_incr 8: \[12, 14\) belongs to the next op" \
  $S audit rng --mesh 2x2 --placements 'S(0),S(0)' --shape 8
expect_exit "audit: --json counts" 0 '"findings":2,"kinds":\["OffsetOverrun"\]' \
  $S audit rng --mesh 2x2 --placements 'S(0),S(0)' --shape 8 --json
expect_exit "audit: the docstring layout is clean" 0 "^0 findings|0 findings" \
  $S audit rng $EX

# 3. policies: a computed table naming every policy.
expect_exit "policies: table" 0 "single-device-equal +yes +yes +yes" $S policies
# Sampled (the ASan and distcheck make checks, testlib.sh) the header checks below take one
# policy's row: the whole table is seconds of policy checks a run under ASan (issue 36: CI time)
one=; sampled && one="--policy hyper-parallel"
# shellcheck disable=SC2086  # one is empty or an option and its value
expect_exit "policies: another GPU profile" 0 "GPU profile t4" $S policies $one --gpu t4
expect_exit "policies: --json" 0 '"name":"hyper-parallel".*"torch-equal":\{"holds":false' \
  $S policies --json

# 3b. --gpu where a verdict depends on the launch (issue 33 item 4).  Layout #14 is mesh 2,
# S(0), shape 1024,1024: each rank launches n = 512*1024 = 524288 elements.  Under seed 000's
# port op 2 starts ceil4(2 devices) = 4 words after op 1, so the ops share draws iff a thread
# of op 1 reaches word 4, i.e. iff n > 4T, T = 256 * min(SMs * threads_per_SM / 256,
# ceil(n / 256)) threads: T < 131072, fewer than 512 blocks of 256.  Rank 1's window starts
# at 1024 (first shard [1,1024]), beyond op 2's words on rank 0 (< 4 + 4*ceil(n/4T) <= 152
# even on one block), so only that overrun decides.  a100: 108*8 = 864 blocks, distinct;
# 7x2048: 56 blocks, not; 64x2048: 512 blocks, n = 4T exactly, distinct; 63x2048: 504, not.
layout14() {
  $S policies --policy hyper-parallel --gpu "$1" --json | sed 's/.*"per_layout":\[//' |
    sed 's/"rejected"/["rejected"]/g; s/\],\[/]\n[/g' | sed -n 15p
}
for gw in a100:yes 7x2048:no 64x2048:yes 63x2048:no; do
  g=${gw%:*} want=${gw#*:}
  got=$(layout14 "$g")
  case $got in *shards-distinct*) have=yes ;; *) have=no ;; esac
  if [ "$have" = "$want" ] && [ -n "$got" ]; then
    tap_ok "policies --policy hyper-parallel --gpu $g: layout #14 shards-distinct $want"
  else tap_not_ok "policies --policy hyper-parallel --gpu $g: layout #14 shards-distinct $want" \
    "got '$got'"; fi
done
expect_exit "policies --gpu: refused for torch-offset, by name and reason" 2 \
  "--policy torch-offset \(its verdicts do not depend on the GPU: its windows are spaced by" \
  $S policies --policy torch-offset --gpu 7x2048
expect_exit "policies --gpu: refused for jax-partitionable, by name and reason" 2 \
  "--policy jax-partitionable \(its verdicts do not depend on the GPU: its bits come from" \
  $S policies --policy jax-partitionable --gpu t4
expect_exit "policies --gpu: --op uniform_ follows torch-offset, refused" 2 \
  "--gpu: not used by policies --op uniform_" $S policies --op uniform_ --gpu t4
expect_exit "policies --gpu: --op exponential_ (untracked) depends on it" 0 "GPU profile t4" \
  $S policies --op exponential_ --gpu t4

# 3c. Megatron's mesh dims: RankGenerator order tp-cp-ep-dp-pp (fastest first) and the expert
# generator RankGenerator(tp=etp, ep, dp, pp) put etp on the last mesh dim and ep on the one
# before it.  2x2x2, seed 1000: rank 2 = coord (0,1,0) is ep 1, etp 0: 1000+1024+100 = 2124;
# rank 4 = (1,0,0) is ep 0 (dim 0 is dp): 2024; rank 7 = (1,1,1): 1000+1024+100+1 = 2125.
for rs in 2:2124 4:2024 7:2125; do
  expect_exit "offsets megatron-ep 2x2x2: rank ${rs%:*} seed ${rs#*:} (ep = the dim before etp)" 0 \
    "\"seed\":\"${rs#*:}\"" $S offsets --mesh 2x2x2 --placements 'S(1),R,S(0)' --shape 8,16 \
    --policy megatron-ep --seed 1000 --rank "${rs%:*}" --json
done
expect_exit "offsets megatron-ep 1-d: the dim is ep (1000+1024+100*3)" 0 '"seed":"2324"' \
  $S offsets --mesh 4 --placements 'S(0)' --shape 8 --policy megatron-ep --seed 1000 --rank 3 --json
expect_exit "policies --help says which mesh dim is tp, ep, etp" 0 \
  "megatron-ep: etp = the last mesh dim, ep = the" $S policies --help
expect_exit "offsets --help says which mesh dim is tp, ep, etp" 0 \
  "megatron-tp: tp = the last mesh dim" $S offsets --help

# 3d. The offset-semantics axis (issue 33 item 1): ascend-910b's offsets select independent
# streams.  Layout #14 under the port starts op 1 at 0 and 1024 and op 2 at 4 and 1028: four
# distinct offsets, so four streams, whatever the launch; on a CUDA window with the same
# geometry (48x256: T = 12288 threads) op 1's elements i >= 4T = 49152 take op 2's element
# i - 4T's draw: 524288 - 49152 = 475136 per rank, 950272 on the two.
coll14() {
  $S policies --policy hyper-parallel --gpu "$1" --json |
    sed -n 's/.*"collisions_per_layout":\[\([^]]*\)\].*/\1/p' | awk -F, '{print $15}'
}
for gw in 48x256:950272 ascend-910b:0 48x256:stream:0 a100:0; do
  g=${gw%:*} want=${gw##*:}
  got=$(coll14 "$g")
  d="policies hyper-parallel --gpu $g: layout #14 has $want collisions"
  if [ "$got" = "$want" ]; then tap_ok "$d"; else tap_not_ok "$d" "got '$got'"; fi
done
# shellcheck disable=SC2086  # one is empty or an option and its value
expect_exit "policies --gpu ascend-910b: the header names the stream semantics" 0 \
  "GPU profile ascend-910b: offsets stream, alignment 4" $S policies $one --gpu ascend-910b
expect_exit "policies --policy torch-offset takes a stream profile (its draws change)" 0 \
  '"offset_semantics":"stream"' $S policies --policy torch-offset --gpu ascend-910b --json
expect_exit "offsets at alignment 8: [3] over 4, rank 1 starts at ceil8(1) = 8" 0 \
  '"start_incr":"8","end_incr":"8"' \
  $S offsets --mesh 4 --placements 'S(0)' --shape 3 --gpu a100:window/8 --rank 1 --json
expect_exit "offsets --gpu ascend-910b: torch-offset's offsets do not move with streams" 2 \
  "--gpu: not used with --policy torch-offset" \
  $S offsets --mesh 4 --placements 'S(0)' --shape 3 --gpu ascend-910b
expect_exit "bad: unknown offset semantics, named" 2 \
  "--gpu: gpu profile 'a100:streams': offset semantics 'streams' is not known \(known: window, stream\)" \
  $S policies --gpu a100:streams
expect_exit "bad: offset alignment not a power of two, named" 2 \
  "--gpu: gpu profile 'ascend-910b:stream/3': offset alignment '3' is not a power of two" \
  $S policies --gpu ascend-910b:stream/3
expect_exit "bad: torch's CUDA kernels on an NPU profile" 2 \
  "gpu profile ascend-910b: offsets stream .*CUDA kernels are modelled on one Philox stream" \
  $S rng --engine torch-cuda --shape 4 --op uniform --gpu ascend-910b

# 4. bad input: exit 2, message names what and where.
expect_exit "bad: placements not fitting the mesh" 2 "placements: 1 given for a 2-d mesh" \
  $S offsets --mesh 2x2 --placements 'S(0)' --shape 8
expect_exit "bad: shard dim beyond the tensor" 2 "shard dim 1 out of range for a 1-d tensor" \
  $S offsets --mesh 4 --placements 'S(1)' --shape 8
expect_exit "bad: negative size" 2 "negative size" \
  $S offsets --mesh 4 --placements 'S(0)' --shape 8,-3
expect_exit "bad: overflowing size" 2 "--shape .*overflow" \
  $S offsets --mesh 4 --placements 'S(0)' --shape 4294967296,4294967296
expect_exit "bad: end_incr overflow" 2 "end_incr: rounding .* overflows int64" \
  $S offsets --mesh 2 --placements 'R' --shape 9223372036854775806
expect_exit "bad: start_incr overflow (nested first-shard quirk)" 2 "start_incr .* overflows int64" \
  $S offsets --mesh 4x4 --placements 'S(0),S(0)' --shape 4611686018427387904
expect_exit "bad: unknown policy" 2 "--policy: unknown policy 'tf-stateless' \(known: torch-offset" \
  $S offsets $EX --policy tf-stateless
expect_exit "bad: unknown GPU profile" 2 "--gpu: .*b9000" \
  $S offsets $EX --policy single-device-equal --gpu b9000
expect_exit "bad: vendor port cannot index shard dim 1 of a 1-d mesh" 77 "IndexError" \
  $S offsets --mesh 4 --placements 'S(1)' --shape 8,16 --policy hyper-parallel
expect_exit "bad: missing --mesh" 2 "--mesh is required" $S offsets --placements R --shape 8
expect_exit "bad: missing --shape" 2 "--shape is required" $S offsets --mesh 2 --placements R
expect_exit "bad: rank not in the mesh" 2 "--rank: rank 9 is not in the mesh" $S offsets $EX --rank 9
expect_exit "bad: unparsable placement" 2 "--placements 'Q\(0\)'" \
  $S offsets --mesh 2 --placements 'Q(0)' --shape 8
expect_exit "bad: negative --offset" 2 "--offset: -4 is negative" $S offsets $EX --offset -4
expect_exit "bad: stray argument" 2 "unexpected argument 'extra'" $S offsets $EX extra
expect_exit "bad: unknown option" 2 "--frob: unknown option" $S offsets $EX --frob
expect_exit "bad: audit rng with another policy" 2 "audit rng checks torch-offset" \
  $S audit rng $EX --policy megatron-tp
expect_exit "bad: audit rng shard dim beyond the tensor" 2 "shard dim 2 out of range" \
  $S audit rng --mesh 2x2 --placements 'S(2),R' --shape 4,4
expect_exit "bad: policies takes no layout" 2 "takes no layout options" $S policies --mesh 2

# The op dimension (lib/offsets/rng_ops.c; issue 14): untracked ops share draws, torch's rejections.
expect_exit "audit rng --op exponential_: every shard draws [0, 32) (H100 check)" 0 \
  "UntrackedOpSharedDraws ranks 0 and 3 .distinct shards.: windows .0, 32. and .0, 32." \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8,16 --op exponential_
expect_exit "audit rng --op uniform_: tracked, no finding" 0 "0 findings" \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8,16 --op uniform_
expect_exit "audit rng --op --json names the dispatch" 0 '"dispatch": ?"untracked"' \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8,16 --op log_normal_ --json
expect_exit "bad: exponential_ on Partial is torch's in-place rejection" 2 \
  "The input has placement .Partial.sum., Shard.dim=1.., but no valid strategy" \
  $S audit rng --mesh 2x2 --placements 'P(sum),S(1)' --shape 5,6 --op exponential_
expect_exit "bad: random_ has no sharding strategy" 2 \
  "Operator aten.random_.from does not have a sharding strategy registered." \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8 --op random_.from
expect_exit "bad: unknown op" 2 "unknown random op 'uniform'" \
  $S audit rng --mesh 4 --placements 'S(0)' --shape 8 --op uniform
expect_exit "native_dropout on Partial: redistribution not modelled (skipped)" 77 "cost model" \
  $S audit rng --mesh 2x2 --placements 'P(sum),S(1)' --shape 5,6 --op native_dropout
expect_exit "ops lists the table" 0 "exponential_           untracked" $S ops
expect_exit "ops --json carries torch's message" 0 \
  "Operator aten.poisson.default does not have a sharding strategy registered." $S ops --json
expect_exit "bad: ops takes no layout" 2 "--mesh: unknown option" $S ops --mesh 2
# 4. upstream's policies (issue 33 item 2): Megatron-LM training's seeds, Megatron's refusals,
# torch.func._random's spans.  Numbers read off the cited sources (lib/offsets/rng_policy.c).
expect_exit "megatron-train-tp: 2x2 (pp, tp) rank 3 = 1000 + 100 + 2718 + 1" 0 \
  '"seed":"3819"' $S offsets --policy megatron-train-tp --mesh 2x2 --placements R,R --shape 8 \
  --seed 1000 --rank 3 --json
expect_exit "megatron-train-dp-random: 2x4 (pp, dp) rank 6 = 1000 + 100 + 10 * 2" 0 \
  '"seed":"1120"' $S offsets --policy megatron-train-dp-random --mesh 2x4 --placements R,R \
  --shape 8 --seed 1000 --rank 6 --json
expect_exit "megatron-train-*: seed 0 refused with Megatron-LM's own words" 77 \
  "Seed \(0\) should be a positive integer" \
  $S offsets --policy megatron-train-dp --mesh 4 --placements R --shape 8 --rank 0
expect_exit "torch-func-random: S(0),S(1) of 8x8, rank (0,1) draws words [4, 32)" 0 \
  '"start_offset":"4","post_offset":"32"' $S offsets --policy torch-func-random --mesh 2x2 \
  --placements 'S(0),S(1)' --shape 8,8 --rank 1 --json
expect_exit "torch-func-random: sharding-invariant and shards-distinct on every layout" 0 \
  "torch-func-random +yes +yes +yes" $S policies --policy torch-func-random
expect_exit "bad: torch-func-random on an NPU profile is refused by name" 2 \
  "torch-func-random: device profile ascend-910b \(offsets stream\) is not modelled" \
  $S policies --policy torch-func-random --gpu ascend-910b
expect_exit "bad: torch-func-random takes no CUDA launch geometry" 2 \
  "--policy torch-func-random \(its verdicts do not depend on the GPU" \
  $S policies --policy torch-func-random --gpu t4
# Registered trackers (issue 33 item 1, lib/offsets/rng_tracker.c): a tracker answers as its
# policy on its device's profile, with one line (text) or "tracker" (JSON) naming it.
expect_exit "trackers lists torch's, torch_npu's, hyper_parallel's, veScale's and Megatron's" 0 \
  "megatron.core.tensor_parallel.random.CudaRNGStatesTracker\[data-parallel-rng\]" $S trackers
n=$($S trackers --json | grep -o '"name":' | wc -l)
[ "$n" -eq 9 ] && tap_ok "trackers --json: 9 rows" || tap_not_ok "trackers --json: 9 rows" "$n"
L="--mesh 2x2 --placements S(0),S(0) --shape 7,3"
a=$($S offsets --tracker NpuRNGStateTracker $L 2>&1 | tail -n +2)
b=$($S offsets --policy torch-offset $L 2>&1)
[ -n "$a" ] && [ "$a" = "$b" ] && tap_ok "offsets --tracker NpuRNGStateTracker: torch-offset's offsets" \
  || tap_not_ok "offsets --tracker NpuRNGStateTracker: torch-offset's offsets" "$a" "$b"
expect_exit "... its first line names it, its framework, policy and profile" 0 \
  "^tracker torch_npu.NpuRNGStateTracker \(torch_npu \(Ascend\)\): policy torch-offset on ascend-910b$" \
  $S offsets --tracker NpuRNGStateTracker $L
a=$($S policies --tracker torch_npu.NpuRNGStateTracker 2>&1 | tail -n +2)
b=$($S policies --policy torch-offset --gpu ascend-910b 2>&1)
[ -n "$a" ] && [ "$a" = "$b" ] && tap_ok "policies --tracker NpuRNGStateTracker: torch-offset's verdicts on ascend-910b" \
  || tap_not_ok "policies --tracker NpuRNGStateTracker: the verdicts on ascend-910b" "$a" "$b"
a=$($S offsets --tracker 'CudaRNGStatesTracker[model-parallel-rng]' $L --seed 5 --json 2>&1 |
  sed 's/"tracker":{[^}]*},//')
b=$($S offsets --policy megatron-tp $L --seed 5 --json 2>&1)
[ -n "$b" ] && [ "$a" = "$b" ] && tap_ok "Megatron's model-parallel-rng state is megatron-tp (JSON)" \
  || tap_not_ok "Megatron's model-parallel-rng state is megatron-tp" "$a" "$b"
expect_exit "--json names the tracker" 0 '"tracker":\{"name":"vescale.dtensor.random.ThreadBasedRNGTracker","framework":"veScale",' \
  $S policies --tracker ThreadBasedRNGTracker --json
expect_exit "--gpu of the tracker's offset semantics: another NPU geometry" 0 \
  "GPU profile 24x256:stream: offsets stream" $S policies --tracker NpuRNGStateTracker --gpu 24x256:stream
expect_exit "bad: an unknown tracker, exit 2 naming the known ones" 2 \
  "--tracker: unknown tracker 'Npu' \(known: torch.distributed.tensor._random.OffsetBasedRNGTracker, " \
  $S offsets --tracker Npu $L
expect_exit "bad: a class two frameworks have, exit 2 naming both" 2 \
  "tracker 'OffsetBasedRNGTracker' is the class of 2 frameworks: name it in full \(torch.distributed.tensor._random.OffsetBasedRNGTracker, hyper_parallel.core.random.OffsetBasedRNGTracker\)" \
  $S policies --tracker OffsetBasedRNGTracker
expect_exit "bad: --tracker with --policy" 2 "--tracker: and --policy exclude each other \(the tracker keeps the torch-offset policy\)" \
  $S offsets --tracker NpuRNGStateTracker --policy torch-offset $L
expect_exit "bad: --tracker with --op" 2 "--tracker: and --op exclude each other" \
  $S policies --tracker NpuRNGStateTracker --op uniform_
expect_exit "bad: a CUDA window profile for an NPU tracker" 2 \
  "--gpu a100: its offsets are window, but torch_npu.NpuRNGStateTracker's device draws stream \(profile ascend-910b\)" \
  $S offsets --tracker NpuRNGStateTracker --gpu a100 $L
expect_exit "bad: audit rng takes no tracker" 2 "--tracker: not used by audit rng" \
  $S audit rng --tracker NpuRNGStateTracker $L
# 3f. The dtype axis (issue 33 item 2; values derived in check_rng_dtypes.c).  a100: T = 221184
# threads; [1024, 1024]: one GPU's float64 step ((2^20 - 1) // 2T + 1) * 4 = 12, float32's 8.
D="--mesh 2 --placements S(0) --shape 1024,1024"
expect_exit "offsets --dtype float64: single-device-equal steps by 12" 0 \
  '"dtype":"float64".*"start_offset":"0","post_offset":"12"' \
  $S offsets $D --policy single-device-equal --dtype float64 --json
expect_exit "offsets --dtype bfloat16 draws as float32: 8" 0 '"post_offset":"8"' \
  $S offsets $D --policy single-device-equal --dtype bfloat16 --json --rank 1
expect_exit "offsets --dtype float64: torch.func._random's words 2g, 2g + 1 (rank 1: [12, 20))" 0 \
  '"rank":1,.*"start_offset":"12","post_offset":"20"' \
  $S offsets --mesh 2 --placements 'S(0)' --shape 8 --policy torch-func-random --dtype float64 --offset 4 --json
expect_exit "offsets --dtype: the text header names it" 0 "dtype float64" \
  $S offsets $D --policy megatron-dp --dtype float64
expect_exit "policies --dtype float64: seed 000's port collides 186619 times" 0 \
  "hyper-parallel .* 186619 rejects 2" $S policies --policy hyper-parallel --dtype float64
expect_exit "policies --dtype: the JSON names it" 0 '"dtype":"float16"' \
  $S policies --policy single-device-equal --dtype float16 --json
expect_exit "bad: --dtype int64, exit 2 naming the floating dtypes" 2 \
  "--dtype int64: the policies model torch's floating uniform_/normal_ \(float32, float64, float16, bfloat16\)" \
  $S policies --dtype int64
expect_exit "bad: --dtype float65, exit 2 naming the value and the dtypes" 2 \
  "--dtype: unknown dtype 'float65' \(expected float32, float64, float16, bfloat16, int64" \
  $S policies --dtype float65
# a policy asked by name that the profile has no dtype model for: refused before any table line
out=$($S policies --policy torch-offset --dtype float64 --gpu ascend-910b 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then tap_ok "bad: --policy with a dtype its NPU profile does not model: exit 2, nothing on stdout"
else tap_not_ok "bad: --policy with a dtype its NPU profile does not model: exit 2, nothing on stdout" "exit $rc" "stdout: $(printf '%s' "$out" | head -c 300)"; fi
expect_exit "bad: --tracker whose NPU profile does not model float64, named" 2 \
  "torch-offset: dtype float64 on device profile ascend-910b \(offsets stream, alignment 4\) is not modelled" \
  $S policies --tracker torch_npu.NpuRNGStateTracker --dtype float64
expect_exit "bad: --dtype with --op" 2 "--dtype: not with --op" $S policies --op uniform_ --dtype float64
expect_exit "bad: --dtype for torch-offset's offsets (element counts)" 2 \
  "--dtype: not used with --policy torch-offset \(its offsets do not depend on the GPU or the dtype\)" \
  $S offsets $D --dtype float64
expect_exit "bad: --dtype for audit rng" 2 "--dtype: not used by audit rng" \
  $S audit rng $D --dtype float64
expect_exit "bad: torch-func-random in float16, exit 2 naming it" 2 \
  "torch-func-random: dtype float16 is not modelled" \
  $S policies --policy torch-func-random --dtype float16
expect_exit "bad: float64 on an NPU for a generator advanced by its kernel" 2 \
  "megatron-dp: dtype float64 on device profile ascend-910b \(offsets stream, alignment 4\) is not modelled" \
  $S offsets $D --policy megatron-dp --dtype float64 --gpu ascend-910b
# 3g. --world (issue 34 item 3): a mesh of ranks 1 and 3 in a world of 4.  torch's dispatcher
# runs no op on ranks 0 and 2 (non-participating: _dispatch.py), so they draw nothing and keep
# the offset; rank 3 holds shard 1 of [8]: start ceil4(1 * 4) = 4, both end at ceil4(8) = 8.
W="--mesh 2 --ranks 1,3 --world 4 --placements S(0) --shape 8"
expect_exit "offsets --world: ranks off the mesh draw nothing, the offset stays" 0 \
  '"world":4,.*\{"rank":0,"coord":null,"draws":false,"seed":"0","start_offset":"100","post_offset":"100"\},\{"rank":1,"coord":\[0\],.*"start_offset":"100","post_offset":"108","draws":true\},\{"rank":2,"coord":null,"draws":false' \
  $S offsets $W --offset 100 --json
expect_exit "offsets --world: rank 3 holds shard 1 (start 4)" 0 \
  '"rank":3,"coord":\[1\],"shard_linear_index":1,"start_incr":"4"' $S offsets $W --rank 3 --json
expect_exit "offsets --world: the text names the off-mesh rank" 0 \
  "^ +2 +- +off the mesh: no op, no draw; the offset stays 0" $S offsets $W --rank 2
expect_exit "offsets --world: --op exponential_ (untracked) takes it too" 0 \
  '"rank":0,"coord":null,"draws":false' $S offsets $W --op exponential_ --json
expect_exit "bad: --world with a policy that has no ranks off its mesh" 2 \
  "--world: not used with --policy megatron-tp \(only torch's DTensor dispatch" \
  $S offsets $W --policy megatron-tp
expect_exit "bad: --rank outside the world" 2 "--rank" $S offsets $W --rank 4
expect_exit "bad: a mesh bigger than the world" 2 "--world 1" \
  $S offsets --mesh 2 --ranks 1,0 --world 1 --placements 'S(0)' --shape 8
expect_exit "bad: policies takes no --world" 2 "--world: not used by policies" \
  $S policies --world 4
tap_done
