#!/bin/sh
# cli_mesh_layout.sh — `shardcheck mesh-layout`: torch 2.13's layout algebra of mesh dims
# (torch/distributed/_mesh_layout.py).  Expected values are the examples of its own
# docstrings (all_ranks_from_zero, complement, global_ranks, check_orthogonal) and the groups
# DeviceMesh made on a real gloo world for a 2x2x2 mesh's dims 0 and 2 ([0,1,4,5],
# [2,3,6,7]); every bad input with its message.  Against torch itself on hundreds of layouts:
# tools/harness/tests/test_mesh_layout.py.
. "$(dirname "$0")/testlib.sh"
ML="$S mesh-layout"

expect_exit "all_ranks_from_zero, example A: (2,3):(3,1)" 0 '"ranks":\[0,1,2,3,4,5\]' $ML --layout '(2,3):(3,1)' --json
expect_exit "all_ranks_from_zero, example B: (2,3):(1,2)" 0 '"ranks":\[0,2,4,1,3,5\]' $ML --layout '(2, 3):(1, 2)' --json
expect_exit "complement example: (4:1) in 8 is (2:1)... lexicographic: (2,):(4,)" 0 '"complement":\{"shape":\[2\],"stride":\[4\]\}' $ML --layout '4:1' --world 8 --json
expect_exit "global_ranks example: 4:1 in 16" 0 '"groups":\[\[0,1,2,3\],\[4,5,6,7\],\[8,9,10,11\],\[12,13,14,15\]\]' $ML --layout '4:1' --world 16 --json
expect_exit "check_orthogonal example 1: (2,3):(6,1)" 0 '"orthogonal":true' $ML --layout '(2,3):(6,1)' --json
expect_exit "check_orthogonal example 2: (2,3):(2,1) overlaps" 0 '"orthogonal":false' $ML --layout '(2,3):(2,1)' --json
expect_exit "check_orthogonal example 3: (4,2):(1,1) overlaps" 0 '"orthogonal":false' $ML --layout '(4,2):(1,1)' --json
expect_exit "a stride-0 mode: Python's ZeroDivisionError, as torch raises it" 0 \
  '"orthogonal":\{"raises":"ZeroDivisionError: integer modulo by zero"\}' $ML --layout '(2,3):(0,1)' --json
expect_exit "normal form: merged modes, size-1 modes dropped" 0 '"text":"\(8,\):\(1,\)"' $ML --layout '(2,1,4):(4,9,1)' --json
expect_exit "normal form: all size 1 is the 0-d layout" 0 '"layout":\{"shape":\[\],"stride":\[\]\}' $ML --layout '(1,1):(5,7)' --json
expect_exit "overlapping modes: torch's complement keeps a zero-size mode" 0 \
  '"complement":\{"shape":\[4,0\],"stride":\[2,2\]\},"groups":\[\]' $ML --layout '(2,2):(1,1)' --world 8 --json
expect_exit "complement: torch's AssertionError where a mode is inside the span covered" 0 \
  '"complement":\{"raises":"AssertionError' $ML --layout '(2,8):(2,1)' --world 16 --json
expect_exit "DeviceMesh 2x2x2 dims 0,2: the flattened groups gloo gave" 0 \
  '"layout":\{"shape":\[2,2\],"stride":\[4,1\]\}.*"groups":\[\[0,1,4,5\],\[2,3,6,7\]\]' $ML --mesh 2x2x2 --dims 0,2 --json
expect_exit "DeviceMesh dims through a rank map" 0 '"groups":\[\[7,6,5,4\],\[3,2,1,0\]\]' \
  $ML --mesh 2x2x2 --ranks 7,6,5,4,3,2,1,0 --dims 1,2 --json
expect_exit "text form" 0 "^groups +\[\[0,1,4,5\],\[2,3,6,7\]\]" $ML --mesh 2x2x2 --dims 0,2

expect_exit "neither --layout nor --mesh" 2 "give --layout or --mesh" $ML
expect_exit "both" 2 "give --layout or --mesh" $ML --layout 4:1 --mesh 2
expect_exit "--mesh without --dims" 2 "--dims: required with --mesh" $ML --mesh 2x2
expect_exit "--dims with --layout" 2 "--dims: not used with --layout" $ML --layout 4:1 --dims 0
expect_exit "--world with --mesh" 2 "--world: not used with --mesh" $ML --mesh 2x2 --dims 0 --world 8
expect_exit "descending dims: torch slices ascending only" 2 "Mesh dim indices should be in ascending order" $ML --mesh 2x2x2 --dims 2,0
expect_exit "a dim out of range: torch's KeyError, its valid names" 2 \
  "mesh dim 3 does not exist \\(torch: KeyError: Invalid mesh_dim_names \\('d0', 'd3'\\) specified. Valid mesh_dim_names are \\['d0', 'd1', 'd2'\\]" \
  $ML --mesh 2x2x2 --dims 0,3
expect_exit "a dim twice: torch's RuntimeError" 2 \
  "taken twice \\(torch: RuntimeError: Slicing overlapping dim_names \\('d1', 'd1'\\) is not allowed" $ML --mesh 2x4 --dims 1,1
expect_exit "size-1 dims in any order, as torch takes them" 0 '"groups":\[\[0,2\],\[1,3\]\]' \
  $ML --mesh 2x1x2 --dims 1,0 --json
expect_exit "a size-1 dim twice, as torch takes it" 0 '"groups":\[\[0\],\[1\],\[2\],\[3\]\]' \
  $ML --mesh 1x4 --dims 0,0 --json
expect_exit "a malformed dim list" 2 "--dims '0,x': expected a comma list" $ML --mesh 2x2 --dims 0,x
expect_exit "a malformed layout" 2 "--layout '\(2,2\)\(4,1\)': expected SHAPE:STRIDE" $ML --layout '(2,2)(4,1)'
expect_exit "sizes and strides of different lengths" 2 "2 sizes and 1 strides \(torch: ValueError" $ML --layout '(2,2):(1,)'
expect_exit "a negative stride" 2 "expected a non-negative integer" $ML --layout '(2,2):(-1,1)'
expect_exit "an unclosed tuple" 2 "a '\(' without its '\)'" $ML --layout '(2,2:(1,1)'
expect_exit "too many modes" 2 "more than 16 modes" $ML --layout '(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1):(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)'
expect_exit "a size x stride past int64" 2 "overflows int64" $ML --layout '(3,2):(4611686018427387904,9223372036854775807)'
expect_exit "world 0" 2 "--world: 0 is not 1 to 16777216" $ML --layout 4:1 --world 0
expect_exit "groups past the printing limit" 0 '"complement":\{"raises":".*more than 1048576 to print' $ML --layout '(1024,):(1,)' --world 16777216 --json
tap_done
