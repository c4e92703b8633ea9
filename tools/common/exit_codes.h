/*
 * exit_codes.h — the exit codes every shardcheck command and the runner use (README "exit
 * codes"): 0 passed or answered, 1 a check failed, 2 bad input or usage (named), 77 skipped
 * (nothing could be checked here, say why), 99 an internal error.  In tools/common so the
 * runner (tools/run) and the vendor's kit (tools/kit) need not include the CLI's header.
 * Tested by refusals.sh, cli_errors.sh, hardening.sh and every test asserting an exit code.
 */
#ifndef SHC_EXIT_CODES_H
#define SHC_EXIT_CODES_H

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_SKIP = 77, EXIT_INTERNAL = 99 };

#endif
