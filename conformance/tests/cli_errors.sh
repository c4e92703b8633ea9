#!/bin/sh
# cli_errors.sh — the CLI's shared contract: help, version and the exit-0 answers next to its
# refusals. The refusals themselves (unknown commands and options, D1's unterminated quotes) are
# rows of refusals/cli.txt and refusals/layout.txt, run by refusals.sh.
. "$(dirname "$0")/testlib.sh"
expect_exit "--help lists the commands" 0 "commands:" $S --help
expect_exit "--version names the pinned reference" 0 "pytorch 2.13.0" $S --version
expect_exit "gen --list names the families" 0 "shard-layout" $S gen --list
expect_exit "a closed quote is still accepted" 0 '"localShape":\[4\]' $S layout --mesh 2 --shape 4 --placements "P('avg')" --json
tap_done
