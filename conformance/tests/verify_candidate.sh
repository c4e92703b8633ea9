#!/bin/sh
# verify_candidate.sh — STUB
. "$top_srcdir/conformance/tests/tap.sh"
tap_skip stub "not written yet"
tap_done
