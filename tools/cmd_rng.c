/* cmd_rng.c — `shardcheck rng` (stub until the random-engines area lands). */
#include "config.h"
#include "cli.h"
int cmd_rng(int argc, char **argv) { return cli_usage_error("rng", "not implemented yet"); }
