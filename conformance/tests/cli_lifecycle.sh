#!/bin/sh
# cli_lifecycle.sh — `shardcheck lifecycle`: DTensor's RNG set-up per rank (issue 34 item 5).
# Expected values are read off torch 2.13's source (every modelled release's wheel alike):
# _random.py manual_seed / is_rng_supported_mesh / OffsetBasedRNGTracker.__init__ /
# _PhiloxState, _dispatch.py's lazy tracker (participating ranks only) and _api.py
# _dtensor_init_helper; the CPU answers and the bytes are also run against real torch by
# tools/harness/tests/test_rng_lifecycle.py.  Every bad input with its message.
. "$(dirname "$0")/testlib.sh"
SUB="--mesh 2 --ranks 1,3 --world 4 --seed 7"

# CUDA-like mesh, rank on it: manual_seed is torch.manual_seed(7), no collective, state (7, 0).
expect_out "on the mesh: manual_seed sets (seed, 0) without a collective" \
'{"outcome":"runs","collectives":0,"what":"torch.manual_seed(seed): the generator'"'"'s state is (seed, 0)","state":{"seed":"7","offset":"0","philoxState":"07000000000000000000000000000000"}}' \
  sh -c "$S lifecycle $SUB --rank 1 --json | sed 's/.*\"manualSeed\":\\({[^}]*}}\\).*/\\1/'"
expect_exit "off the mesh: manual_seed raises torch's RuntimeError" 0 \
  '"manualSeed":\{"outcome":"raises","collectives":0,"what":"RuntimeError: manual_seed requires the current rank to be a part of the device mesh otherwise' \
  $S lifecycle $SUB --rank 2 --json
# The lazy tracker: only participating ranks build it (_dispatch.py), and its sync broadcasts
# over the default group: with ranks off the mesh the mesh's ranks wait.
expect_exit "sub-world first op: the mesh's ranks wait in the broadcast" 0 \
  '"firstOp":\{"outcome":"waits","collectives":1,' $S lifecycle $SUB --rank 3 --json
expect_exit "sub-world first op: a rank off the mesh runs nothing" 0 \
  '"firstOp":\{"outcome":"noop","collectives":0,' $S lifecycle $SUB --rank 0 --json
expect_exit "whole-world first op: one broadcast, rank 0's state" 0 \
  '"firstOp":\{"outcome":"runs","collectives":1,.*"stateFrom":0' $S lifecycle --mesh 2x2 --rank 3 --json
# The factory has no participation check: every rank of the world joins its broadcast.
expect_exit "factory: a rank off the mesh joins the broadcast" 0 \
  '"factory":\{"outcome":"runs","collectives":1,' $S lifecycle $SUB --rank 2 --json
# cpu: torch.cpu has no set_rng_state, so manual_seed warns and returns (even off the mesh),
# no tracker is made, a factory asserts, a first op draws untracked.
expect_exit "cpu: manual_seed warns, no-op" 0 \
  '"manualSeed":\{"outcome":"noop","collectives":0,"what":"UserWarning: DTensor manual_seed\(\) may not have complete support on cpu device mesh"' \
  $S lifecycle $SUB --device cpu --rank 2 --json
expect_exit "cpu: a factory asserts on every rank" 0 '"factory":\{"outcome":"raises","collectives":0,"what":"AssertionError' \
  $S lifecycle $SUB --device cpu --rank 0 --json
expect_exit "cpu: a first op draws untracked" 0 '"firstOp":\{"outcome":"runs","collectives":0,' \
  $S lifecycle $SUB --device cpu --rank 1 --json
expect_exit "text lists every rank of the world" 0 "^rank 2 \(off the mesh\)" $S lifecycle $SUB
# _PhiloxState: seed bytes 0-7 and offset bytes 8-15, little-endian (torch views them as
# uint64 and int64): 2^63 + 5 and 12345 = 0x3039.
expect_out "philox bytes" \
  '{"seed":"9223372036854775813","offset":"12345","offsetInt64":"12345","bytes":"05000000000000803930000000000000"}' \
  $S lifecycle --philox 9223372036854775813,12345 --json
expect_out "philox bytes back" \
  '{"seed":"9223372036854775813","offset":"12345","offsetInt64":"12345","bytes":"05000000000000803930000000000000"}' \
  $S lifecycle --philox-bytes 05000000000000803930000000000000 --json
expect_out "an offset past 2^63-1 reads back negative as torch's int64 view" \
  '{"seed":"0","offset":"18446744073709551615","offsetInt64":"-1","bytes":"0000000000000000ffffffffffffffff"}' \
  $S lifecycle --philox 0,18446744073709551615 --json

# A first op given a user's generator g (torch 2.13 _dispatch.py, _random.py): on a CUDA-like
# whole-world mesh the tracker's offsets move g (one broadcast: the tracker's sync); with ranks
# off the mesh the sync waits; on a cpu mesh g is dropped (docs/findings/user_generator_cpu_mesh.py).
expect_exit "user generator, CUDA-like: the tracker's offsets move g" 0 \
  '"userGenerator":\{"outcome":"runs","collectives":1,"what":"OffsetBasedRNGTracker\(mesh\) syncs the default state from rank 0; the op draws from g.s state' \
  $S lifecycle --mesh 2 --rank 1 --json
expect_exit "user generator, a sub-world CUDA-like mesh: the sync waits" 0 \
  '"userGenerator":\{"outcome":"waits","collectives":1' $S lifecycle $SUB --rank 1 --json
expect_exit "user generator off the mesh: no op, g does not move" 0 \
  '"userGenerator":\{"outcome":"noop","collectives":0,"what":"not on the mesh: the rank runs no op \(_dispatch.py\); g does not move"' \
  $S lifecycle $SUB --rank 0 --json
expect_exit "user generator on a cpu mesh: dropped, the finding named" 0 \
  "op, generator=g +runs +0 collectives +generator= is dropped .*docs/findings/user_generator_cpu_mesh.py" \
  $S lifecycle --mesh 2 --device cpu --rank 0

expect_exit "needs --mesh" 2 "--mesh is required" $S lifecycle --seed 3
expect_exit "rank outside the world" 2 "--rank: rank 4 is not in the world \(ranks 0..3\)" $S lifecycle $SUB --rank 4
expect_exit "unknown device" 2 "--device" $S lifecycle --mesh 2 --device tpu
expect_exit "seed out of range" 2 "--seed" $S lifecycle --mesh 2 --seed 18446744073709551616
expect_exit "philox without a comma" 2 "--philox '7': expected SEED,OFFSET" $S lifecycle --philox 7
expect_exit "philox offset out of range" 2 "--philox" $S lifecycle --philox 1,18446744073709551616
expect_exit "philox bytes too short" 2 "expected 32 hex digits" $S lifecycle --philox-bytes 00
expect_exit "philox bytes not hex" 2 "'g' at 0 is not a hex digit" $S lifecycle --philox-bytes g0000000000000000000000000000000
expect_exit "philox with a mesh" 2 "--mesh: not used with --philox" $S lifecycle --philox 1,2 --mesh 2
expect_exit "philox and its bytes" 2 "--philox-bytes: not used with --philox" $S lifecycle --philox 1,2 --philox-bytes 00
tap_done
