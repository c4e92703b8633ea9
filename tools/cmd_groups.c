/* cmd_groups.c — STUB */
#include "config.h"
#include "cli.h"
int cmd_groups(int argc, char **argv) { return cli_usage_error("groups", "not implemented yet"); }
