#!/bin/sh
# torch_pins.sh — what PyTorch's own DTensor tests assert, asked of shardcheck (issue 34 item 6):
# every row of conformance/torch_pins/*.json, through torch_pins.py.  The rows' expected values
# are read off torch's test files (each row cites its test); tools/harness/tests/
# test_torch_pins.py asks real torch the same rows.
. "$(dirname "$0")/testlib.sh"
need_python "torch_pins.py reads the tables"
exec "$PY" "$tests_dir/torch_pins.py" "$S" "$top_srcdir"/conformance/torch_pins/*.json
