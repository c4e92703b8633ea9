#!/bin/sh
# cli_errors.sh — the CLI's shared contract: help, version, unknown commands and options, exit codes.
. "$top_srcdir/conformance/tests/tap.sh"
S=$SHARDCHECK
expect_exit "--help lists the commands" 0 "commands:" $S --help
expect_exit "--version names the pinned reference" 0 "pytorch 2.13.0" $S --version
expect_exit "no command is a usage error" 2 "usage: shardcheck COMMAND" $S
expect_exit "an unknown command is a usage error" 2 "unknown command 'frobnicate'" $S frobnicate
expect_exit "audit needs rng or plan" 2 "expected 'rng' or 'plan'" $S audit
expect_exit "gen rejects an unknown option" 2 "unrecognized option" $S gen --bogus
expect_exit "gen rejects a positional argument" 2 "unexpected argument 'extra'" $S gen extra
expect_exit "gen --list names the families" 0 "shard-layout" $S gen --list
tap_done
