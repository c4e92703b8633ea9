#!/bin/sh
# cli_errors.sh — STUB
. "$top_srcdir/conformance/tests/tap.sh"
tap_skip stub "not written yet"
tap_done
