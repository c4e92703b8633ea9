/* cmd_offsets.c — `shardcheck offsets`, `policies`, `audit rng` (stub until the rng-offsets area lands). */
#include "config.h"
#include "cli.h"
int cmd_offsets(int argc, char **argv) { return cli_usage_error("offsets", "not implemented yet"); }
int cmd_policies(int argc, char **argv) { return cli_usage_error("policies", "not implemented yet"); }
int cmd_audit_rng(int argc, char **argv) { return cli_usage_error("audit rng", "not implemented yet"); }
